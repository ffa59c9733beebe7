import type {
  SmtpDropRule,
  SmtpFinalRcptAction,
  SmtpRcptAction,
  SmtpReplySpec,
  SmtpScript,
  SmtpStage,
} from './script.js';

// Validation turns every mistake in a script into a TypeError naming the offending field, so a
// typo in a test fails loudly instead of silently running the default behaviour.

export const STAGES: readonly SmtpStage[] = [
  'greeting',
  'ehlo',
  'helo',
  'starttls',
  'mail',
  'rcpt',
  'rset',
  'noop',
  'vrfy',
  'data',
  'quit',
  'other',
];

const SCRIPT_KEYS: ReadonlySet<string> = new Set<keyof SmtpScript>([
  'hostname',
  'greeting',
  'banner',
  'ehlo',
  'ehloGreeting',
  'helo',
  'extensions',
  'tls',
  'mailFrom',
  'mailboxes',
  'domains',
  'defaultRcpt',
  'maxRcptsPerSession',
  'replyDelayMs',
  'replyDelayModel',
  'drop',
]);

const FINAL_RCPT_WORDS = ['accept', 'unknown', 'disabled', 'full', 'blocked', 'drop'] as const;

function fail(path: string, message: string): never {
  throw new TypeError(`SMTP script ${path}: ${message}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Checks one reply line: CR or LF inside it would let a script forge extra replies. */
export function checkLine(path: string, line: unknown): string {
  if (typeof line !== 'string') fail(path, `must be a string, got ${typeof line}`);
  if (/[\r\n]/.test(line)) fail(path, 'must not contain CR or LF (use an array for several lines)');
  return line;
}

function checkLines(path: string, value: unknown): string[] {
  if (typeof value === 'string') return [checkLine(path, value)];
  if (!Array.isArray(value) || value.length === 0)
    fail(path, 'must be a string or a non-empty array of strings');
  return value.map((line, i) => checkLine(`${path}[${i}]`, line));
}

function checkWord<const T extends string>(path: string, value: unknown, words: readonly T[]): T {
  if (typeof value === 'string' && (words as readonly string[]).includes(value)) return value as T;
  return fail(
    path,
    `must be one of ${words.map((w) => `'${w}'`).join(', ')} or { code, text }, got ${show(value)}`,
  );
}

function checkReplySpec(path: string, value: Record<string, unknown>): SmtpReplySpec {
  for (const key of Object.keys(value)) {
    if (key !== 'code' && key !== 'text') fail(path, `a reply is { code, text }: unknown field '${key}'`);
  }
  const code = value.code;
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 200 || code > 599) {
    fail(`${path}.code`, `must be an integer reply code 200..599, got ${show(code)}`);
  }
  return { code, text: checkLines(`${path}.text`, value.text) };
}

/** A word from `words` or a literal reply. */
function checkWordOrReply<const T extends string>(
  path: string,
  value: unknown,
  words: readonly T[],
): T | SmtpReplySpec {
  return isRecord(value) ? checkReplySpec(path, value) : checkWord(path, value, words);
}

function checkDelay(path: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(path, `must be a finite number of milliseconds >= 0, got ${show(value)}`);
  }
  return value;
}

function checkFinalRcpt(path: string, value: unknown): SmtpFinalRcptAction {
  if (isRecord(value) && 'greylist' in value) fail(path, 'a greylist cannot be nested in a greylist');
  return checkWordOrReply(path, value, FINAL_RCPT_WORDS);
}

function checkRcptAction(path: string, value: unknown): SmtpRcptAction {
  if (isRecord(value) && 'greylist' in value) {
    if (Object.keys(value).length !== 1) fail(path, 'a greylist action has the single key "greylist"');
    const spec = value.greylist;
    if (!isRecord(spec)) fail(`${path}.greylist`, 'must be an object { delayMs?, afterwards? }');
    for (const key of Object.keys(spec)) {
      if (key !== 'delayMs' && key !== 'afterwards') fail(`${path}.greylist`, `unknown field '${key}'`);
    }
    return {
      greylist: {
        delayMs: spec.delayMs === undefined ? 300 : checkDelay(`${path}.greylist.delayMs`, spec.delayMs),
        afterwards:
          spec.afterwards === undefined
            ? 'accept'
            : checkFinalRcpt(`${path}.greylist.afterwards`, spec.afterwards),
      },
    };
  }
  return checkFinalRcpt(path, value);
}

function checkMap(
  path: string,
  value: unknown,
  checkKey: (key: string) => string | undefined,
): Record<string, SmtpRcptAction> {
  if (!isRecord(value)) fail(path, 'must be an object');
  const out: Record<string, SmtpRcptAction> = {};
  for (const [key, action] of Object.entries(value)) {
    const problem = checkKey(key);
    if (problem) fail(`${path}[${JSON.stringify(key)}]`, problem);
    out[key.toLowerCase()] = checkRcptAction(`${path}[${JSON.stringify(key)}]`, action);
  }
  return out;
}

function mailboxKeyProblem(key: string): string | undefined {
  const at = key.lastIndexOf('@');
  if (at <= 0 || at === key.length - 1) return 'a mailbox key must be a full address local@domain';
  return /[\s<>]/.test(key) ? 'a mailbox key must not contain spaces or angle brackets' : undefined;
}

function domainKeyProblem(key: string): string | undefined {
  if (key.length === 0 || /[\s@<>]/.test(key))
    return 'a domain key must be a bare domain such as example.test';
  return undefined;
}

function checkDrop(path: string, value: unknown): SmtpDropRule {
  if (!isRecord(value)) fail(path, 'must be an object { at, nth?, afterReply? }');
  for (const key of Object.keys(value)) {
    if (key !== 'at' && key !== 'nth' && key !== 'afterReply') fail(path, `unknown field '${key}'`);
  }
  const at = checkWord(`${path}.at`, value.at, STAGES);
  const nth = value.nth ?? 1;
  if (typeof nth !== 'number' || !Number.isInteger(nth) || nth < 1) {
    fail(`${path}.nth`, `must be an integer >= 1, got ${show(nth)}`);
  }
  const afterReply = value.afterReply ?? false;
  if (typeof afterReply !== 'boolean') fail(`${path}.afterReply`, 'must be a boolean');
  return { at, nth, afterReply };
}

function checkReplyDelay(path: string, value: unknown): SmtpScript['replyDelayMs'] {
  if (!isRecord(value)) return checkDelay(path, value);
  const out: Partial<Record<SmtpStage, number>> = {};
  for (const [key, delay] of Object.entries(value)) {
    out[checkWord(`${path} key`, key, STAGES)] = checkDelay(`${path}.${key}`, delay);
  }
  return out;
}

/** Validates a script and returns a copy with normalised (lower-cased) mailbox and domain keys. */
export function validateScript(path: string, value: unknown): SmtpScript {
  if (value === undefined) return {};
  if (!isRecord(value)) fail(path, 'must be an object');
  for (const key of Object.keys(value)) {
    if (!SCRIPT_KEYS.has(key)) fail(path, `unknown field '${key}'`);
  }
  const s = value as Record<keyof SmtpScript, unknown>;
  const out: SmtpScript = {};
  if (s.hostname !== undefined) {
    const hostname = checkLine(`${path}.hostname`, s.hostname);
    if (!/^[^\s]+$/.test(hostname)) fail(`${path}.hostname`, 'must be a non-empty name without spaces');
    out.hostname = hostname;
  }
  if (s.greeting !== undefined)
    out.greeting = checkWordOrReply(`${path}.greeting`, s.greeting, ['ok', 'busy', 'blocked']);
  if (s.banner !== undefined) out.banner = checkLines(`${path}.banner`, s.banner);
  if (s.ehlo !== undefined) out.ehlo = checkWordOrReply(`${path}.ehlo`, s.ehlo, ['ok', 'reject']);
  if (s.ehloGreeting !== undefined) out.ehloGreeting = checkLine(`${path}.ehloGreeting`, s.ehloGreeting);
  if (s.helo !== undefined) out.helo = checkWordOrReply(`${path}.helo`, s.helo, ['ok', 'reject']);
  if (s.extensions !== undefined) {
    if (!Array.isArray(s.extensions)) fail(`${path}.extensions`, 'must be an array of strings');
    out.extensions = s.extensions.map((line, i) => checkLine(`${path}.extensions[${i}]`, line));
  }
  if (s.tls !== undefined) out.tls = checkWord(`${path}.tls`, s.tls, ['offer', 'require', 'none', 'broken']);
  if (s.mailFrom !== undefined) {
    out.mailFrom = checkWordOrReply(`${path}.mailFrom`, s.mailFrom, ['accept', 'blocked', 'drop']);
  }
  if (s.mailboxes !== undefined)
    out.mailboxes = checkMap(`${path}.mailboxes`, s.mailboxes, mailboxKeyProblem);
  if (s.domains !== undefined) out.domains = checkMap(`${path}.domains`, s.domains, domainKeyProblem);
  if (s.defaultRcpt !== undefined) out.defaultRcpt = checkRcptAction(`${path}.defaultRcpt`, s.defaultRcpt);
  if (s.maxRcptsPerSession !== undefined) {
    const max = s.maxRcptsPerSession;
    if (
      typeof max !== 'number' ||
      !(max === Number.POSITIVE_INFINITY || (Number.isInteger(max) && max >= 1))
    ) {
      fail(`${path}.maxRcptsPerSession`, `must be an integer >= 1 or Infinity, got ${show(max)}`);
    }
    out.maxRcptsPerSession = max;
  }
  if (s.replyDelayMs !== undefined)
    out.replyDelayMs = checkReplyDelay(`${path}.replyDelayMs`, s.replyDelayMs);
  if (s.replyDelayModel !== undefined)
    out.replyDelayModel = checkWord(`${path}.replyDelayModel`, s.replyDelayModel, ['service', 'latency']);
  if (s.drop !== undefined) out.drop = checkDrop(`${path}.drop`, s.drop);
  return out;
}

/** Checks that a listening address is a dotted IPv4 address inside 127.0.0.0/8. */
export function validateLoopbackHost(path: string, value: unknown): string {
  if (typeof value !== 'string')
    throw new TypeError(`SMTP ${path}: host must be a string, got ${typeof value}`);
  const parts = value.split('.');
  const octets = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : Number.NaN));
  if (parts.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255)) || octets[0] !== 127) {
    throw new TypeError(
      `SMTP ${path}: host must be a 127.x.y.z loopback address, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Checks a TCP port number (0 picks an ephemeral one). */
export function validatePort(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    throw new TypeError(`SMTP port must be an integer 0..65535, got ${show(value)}`);
  }
  return value;
}
