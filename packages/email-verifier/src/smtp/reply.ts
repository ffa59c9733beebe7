/** One complete SMTP reply: all lines of a multi-line reply, joined. */
export interface SmtpReply {
  code: number;
  /** RFC 3463 enhanced status such as `5.1.1`, when the server gave one. */
  enhanced: string | undefined;
  /** Text of every line without code and separators. */
  lines: string[];
}

const LINE = /^(\d{3})([ -])(.*)$/;
const ENHANCED = /^([245])\.(\d{1,3})\.(\d{1,3})(?:\s|$)/;

/**
 * Accumulates reply lines until the last one (`250 ` rather than `250-`, RFC 5321 §4.2.1).
 * Returns the reply when complete, undefined while more lines are expected.
 */
export class ReplyReader {
  private lines: string[] = [];
  private code: number | undefined;

  /** Feeds one line (without CRLF). Throws on a line that is not an SMTP reply. */
  push(line: string): SmtpReply | undefined {
    const match = LINE.exec(line) ?? (/^\d{3}$/.test(line) ? [line, line, ' ', ''] : null);
    if (!match) throw new SmtpProtocolError(`not an SMTP reply line: ${JSON.stringify(line.slice(0, 80))}`);
    const code = Number(match[1]);
    if (this.code !== undefined && code !== this.code) {
      throw new SmtpProtocolError(
        `reply code changed from ${this.code} to ${code} inside a multi-line reply`,
      );
    }
    this.code = code;
    this.lines.push(match[3] ?? '');
    if (match[2] === '-') return undefined;
    const lines = this.lines;
    this.lines = [];
    this.code = undefined;
    return { code, enhanced: enhancedStatus(code, lines[0] ?? ''), lines };
  }
}

/** The enhanced status code at the start of a reply's text, if its class matches the reply code. */
export function enhancedStatus(code: number, text: string): string | undefined {
  const match = ENHANCED.exec(text);
  if (!match || Number(match[1]) !== Math.floor(code / 100)) return undefined;
  return `${match[1]}.${match[2]}.${match[3]}`;
}

/** The server said something that is not SMTP. */
export class SmtpProtocolError extends Error {
  override name = 'SmtpProtocolError';
}
