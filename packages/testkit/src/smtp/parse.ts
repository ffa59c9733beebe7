import type { SmtpStage } from './script.js';

const VERBS: Readonly<Record<string, SmtpStage>> = {
  EHLO: 'ehlo',
  HELO: 'helo',
  STARTTLS: 'starttls',
  MAIL: 'mail',
  RCPT: 'rcpt',
  RSET: 'rset',
  NOOP: 'noop',
  VRFY: 'vrfy',
  DATA: 'data',
  QUIT: 'quit',
};

/** A command line split into its stage and the text after the verb. */
export interface ParsedCommand {
  stage: SmtpStage;
  /** The text after the verb and its separating space, trimmed. */
  arg: string;
}

/** Splits a command line into its stage and argument. */
export function parseCommand(line: string): ParsedCommand {
  const space = line.indexOf(' ');
  const verb = (space < 0 ? line : line.slice(0, space)).toUpperCase();
  return { stage: VERBS[verb] ?? 'other', arg: space < 0 ? '' : line.slice(space + 1).trim() };
}

/**
 * Reads the path of `MAIL FROM:<path> params` or `RCPT TO:<path> params` (the argument after the
 * verb), leniently like Postfix: a space after the colon and a missing pair of angle brackets are
 * tolerated, a source route (`<@a,@b:user@c>`) is stripped. Returns `undefined` on a syntax error.
 */
export function parsePath(arg: string, keyword: 'FROM' | 'TO'): string | undefined {
  const prefix = `${keyword}:`;
  if (arg.slice(0, prefix.length).toUpperCase() !== prefix) return undefined;
  const rest = arg.slice(prefix.length).trimStart();
  let path: string;
  if (rest.startsWith('<')) {
    const close = rest.indexOf('>');
    if (close < 0) return undefined;
    path = rest.slice(1, close);
  } else {
    path = rest.split(' ')[0] ?? '';
  }
  if (path.startsWith('@')) {
    const colon = path.indexOf(':');
    if (colon < 0) return undefined;
    path = path.slice(colon + 1);
  }
  // Control characters and spaces never belong in an envelope address outside quotes; quoted local
  // parts with spaces are rare enough that a fake MTA may reject them.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\s<>\u0000-\u001f\u007f]/.test(path)) return undefined;
  return path;
}
