import {
  createDns2Resolver,
  createVerifier,
  type SmtpProxyOptions,
  type VerifierOptions,
} from '@svc/email-verifier';
import type { Command } from './command.js';
import { UsageError } from './usage-error.js';

/** The verifier's flags, shared by `svc verify` and `svc batch run --type verify_email`. */
export const VERIFIER_FLAGS = {
  probe: { type: 'boolean' },
  'no-disposable': { type: 'boolean' },
  dns: { type: 'string' },
  'dns-canary': { type: 'string', multiple: true },
  'smtp-port': { type: 'string' },
  helo: { type: 'string' },
  from: { type: 'string' },
  'allow-private-mx': { type: 'boolean' },
  proxy: { type: 'string', multiple: true },
  'proxy-selection': { type: 'string' },
  'proxy-cooldown': { type: 'string' },
} as const satisfies NonNullable<Command['options']>;

/** Their help lines, in the same order. */
export const VERIFIER_FLAGS_HELP = `  --probe             ask the domain's mail servers about the mailbox (sends no mail; needs port 25)
  --no-disposable     do not flag disposable domains
  --dns <host:port>   ask this DNS server instead of the system resolvers
  --dns-canary <name> a name the resolver must resolve before any domain is called non-existent;
                      repeat for several (default iana.org, ietf.org, icann.org; an intranet names its own)
  --smtp-port <n>     dial MX hosts on this port (default 25)
  --helo <name>       EHLO name (default: this host's name)
  --from <address>    envelope sender (default: the null sender <>)
  --allow-private-mx  also probe MX hosts on private addresses (intranets, tests)
  --proxy <url>       probe through this SOCKS5 proxy, socks5://[user:pass@]host:port; repeat for a
                      pool (one proxy per session); pin one to providers: google,microsoft=socks5://…
  --proxy-selection <per-provider|round-robin>  how a session's proxy is chosen (default per-provider)
  --proxy-cooldown <ms>  a failing proxy is out this long, doubling per failure (default 30000)`;

/** What the flags ask for: the verifier's options and the per-call checks. */
export interface VerifierSettings {
  options: VerifierOptions;
  checks: { probe_mailbox: boolean; check_disposable: boolean };
}

/** Turns the verifier's flags into options; a bad value is a usage error of `command`. */
export function verifierSettings(values: Record<string, unknown>, command: string): VerifierSettings {
  const smtp: NonNullable<VerifierOptions['smtp']> = {};
  if (values['smtp-port'] !== undefined) {
    const port = Number(values['smtp-port']);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new UsageError(`--smtp-port must be a port number, got "${values['smtp-port']}"`, command);
    }
    smtp.port = port;
  }
  if (typeof values.helo === 'string') smtp.heloName = values.helo;
  if (typeof values.from === 'string') smtp.mailFrom = values.from;
  if (values['allow-private-mx'] === true) smtp.allowPrivateAddresses = true;
  if (Array.isArray(values.proxy) && values.proxy.length > 0)
    smtp.proxies = (values.proxy as string[]).map(proxyFlag);
  if (typeof values['proxy-selection'] === 'string')
    smtp.proxySelection = values['proxy-selection'] as NonNullable<typeof smtp.proxySelection>;
  if (typeof values['proxy-cooldown'] === 'string') {
    const ms = Number(values['proxy-cooldown']);
    if (!Number.isInteger(ms) || ms < 0)
      throw new UsageError(
        `--proxy-cooldown must be milliseconds, got "${values['proxy-cooldown']}"`,
        command,
      );
    smtp.proxyCooldown = { initialMs: ms };
  }
  const options: VerifierOptions = { smtp };
  if (typeof values.dns === 'string') {
    try {
      options.dns = createDns2Resolver({ server: values.dns });
    } catch (error) {
      throw new UsageError(`--dns: ${(error as Error).message}`, command);
    }
  }
  if (Array.isArray(values['dns-canary']) && values['dns-canary'].length > 0)
    options.resolverHealth = { canaries: values['dns-canary'] as string[] };
  try {
    // Constructing once here turns a bad --helo or --from into a usage error, not a crash later.
    createVerifier(options);
  } catch (error) {
    throw new UsageError(
      (error as Error).message
        .replace(/^smtp\.heloName/, '--helo')
        .replace(/^smtp\.mailFrom/, '--from')
        .replace(/^smtp\.proxies\[(\d+)\](\.url)?/, (_, index: string) => `--proxy #${Number(index) + 1}`)
        .replace(/^smtp\.proxySelection/, '--proxy-selection')
        .replace(/^smtp\.proxyCooldown\.initialMs/, '--proxy-cooldown')
        .replace(/^resolverHealth\.canaries:?/, '--dns-canary:'),
      command,
    );
  }
  return {
    options,
    checks: { probe_mailbox: values.probe === true, check_disposable: values['no-disposable'] !== true },
  };
}

/**
 * `socks5://…`, or `google,microsoft=socks5://…` for a proxy pinned to those receiving providers.
 * The URL is checked by the verifier (messages name the flag by position, never its password).
 */
function proxyFlag(value: string): SmtpProxyOptions {
  const pinned = /^([a-z,]+)=(socks5h?:\/\/.*)$/i.exec(value);
  if (!pinned) return { url: value };
  const providers = (pinned[1] as string).split(',').filter((provider) => provider !== '');
  return { url: pinned[2] as string, providers };
}
