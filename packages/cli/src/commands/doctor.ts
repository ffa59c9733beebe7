import {
  blocklistForZone,
  DEFAULT_BLOCKLISTS,
  type DoctorOptions,
  type DoctorReport,
  parseSocks5Url,
  runDoctor,
} from '@svc/email-verifier';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { printJson } from '../output.js';
import { UsageError } from '../usage-error.js';

const LABEL = { ok: 'ok', warning: 'warning', failed: 'FAILED' } as const;

/** `svc doctor`: can this machine probe mailboxes, and will receivers talk to it? */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'Check that SMTP probing can work from here (port 25, reverse DNS, blocklists, DNS)',
  usage: [
    '[--helo name] [--from address] [--public-address ip] [--proxy socks5://[user:pass@]host[:port]] [--json]',
    '[--test-host host] [--smtp-port n] [--dns host:port] [--blocklist zone ...] [--timeout ms] [--config svc.json]',
  ],
  details: `Checks, each ok / warning / FAILED with what to do:
  DNS resolver     answers, latency, DNSSEC-validating or not (AD bit on --dnssec-name)
  Outbound SMTP    port 25 on the test host, directly or through --proxy: refused, timed out,
                   filtered or no greeting, and what that means
  Public address   the address receivers see (--public-address, or echoed in the test host's EHLO reply)
  Reverse DNS      its PTR, resolving back to it, matching --helo
  Sender domain    SPF and MX of the --from domain (with the null sender: SPF of the HELO name)
  Blocklists       the address on each DNS blocklist, the answer decoded, the delisting page
Options:
  --helo <name>            EHLO name probes use (default: this host's name)
  --from <address>         envelope sender probes use (default: the null sender <>)
  --public-address <ip>    the address receivers see, if you know it
  --proxy <url>            socks5://[user:pass@]host[:port] (port 1080 by default): probes go through
                           this SOCKS5 proxy (check each proxy of a pool in turn)
  --test-host <host>       a mail server to try (default gmail-smtp-in.l.google.com, which echoes your address)
  --smtp-port <n>          the port probes use (default 25)
  --dns <host:port>        the resolver to ask (default: the system's first)
  --blocklist <zone>       a DNS blocklist zone; repeat for several; replaces the defaults
                           (${DEFAULT_BLOCKLISTS.map((list) => list.zone).join(', ')})
  --dnssec-name <name>     a DNSSEC-signed name for the resolver check (default ietf.org)
  --timeout <ms>           connect and reply timeout (default 10000)
  --config <svc.json>      start from what svc serve would use: its config file, then SVC_* variables
                           (smtp.heloName, smtp.mailFrom, smtp.port, the first unpinned smtp.proxies
                           entry, dns, probing.*); the flags above override it
Exit code 1 when any check FAILED (warnings alone exit 0).`,
  options: {
    helo: { type: 'string' },
    from: { type: 'string' },
    'public-address': { type: 'string' },
    proxy: { type: 'string' },
    'test-host': { type: 'string' },
    'smtp-port': { type: 'string' },
    dns: { type: 'string' },
    blocklist: { type: 'string', multiple: true },
    'dnssec-name': { type: 'string' },
    timeout: { type: 'string' },
    config: { type: 'string' },
  },
  async run({ io, flags, values, positionals }) {
    if (positionals.length > 0)
      throw new UsageError(`doctor takes no arguments, got: ${positionals.join(' ')}`, 'doctor');
    // --config: what svc serve would use; the other flags then override it.
    const base =
      typeof values.config === 'string'
        ? await (await import('./doctor-config.js')).doctorOptionsFromServerConfig(io, values.config)
        : {};
    const options = { ...base, ...doctorOptions(values) };
    let report: DoctorReport;
    try {
      report = await runDoctor(options);
    } catch (error) {
      // resolveDoctorOptions names the option; say it as the flag.
      if (error instanceof TypeError) throw new UsageError(flagWords(error.message), 'doctor');
      throw error;
    }
    if (flags.json) printJson(io, report);
    else io.stdout.write(renderReport(report));
    return report.status === 'failed' ? EXIT.failure : EXIT.ok;
  },
};

function doctorOptions(values: Record<string, unknown>): DoctorOptions {
  const options: DoctorOptions = {};
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  if (text('helo') !== undefined) options.heloName = text('helo');
  if (text('from') !== undefined) options.mailFrom = text('from');
  if (text('public-address') !== undefined) options.publicAddress = text('public-address');
  if (text('test-host') !== undefined) options.testHost = text('test-host');
  if (text('dns') !== undefined) options.dnsServer = text('dns');
  if (text('dnssec-name') !== undefined) options.dnssecTestName = text('dnssec-name');
  if (text('smtp-port') !== undefined)
    options.port = integer('--smtp-port', text('smtp-port') as string, 65535);
  const timeout = text('timeout');
  if (timeout !== undefined) {
    const ms = integer('--timeout', timeout, 600_000);
    options.connectTimeoutMs = ms;
    options.commandTimeoutMs = ms;
    options.dnsTimeoutMs = Math.min(ms, 5000);
  }
  const proxy = text('proxy');
  if (proxy !== undefined) {
    try {
      options.proxy = parseSocks5Url(proxy, '--proxy');
    } catch (error) {
      throw new UsageError((error as Error).message, 'doctor');
    }
  }
  const zones = values.blocklist as string[] | undefined;
  if (zones && zones.length > 0) options.blocklists = zones.map(blocklistForZone);
  return options;
}

function integer(flag: string, value: string, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > max) {
    throw new UsageError(`${flag} must be a whole number from 1 to ${max}, got "${value}"`, 'doctor');
  }
  return n;
}

function flagWords(message: string): string {
  return message
    .replace(/^heloName/, '--helo')
    .replace(/^mailFrom/, '--from')
    .replace(/^publicAddress/, '--public-address')
    .replace(/^dnsServer/, '--dns')
    .replace(/^blocklists\[\d+\]\.zone/, '--blocklist');
}

/** The report for people: who we are, then one block per check, then the count. */
export function renderReport(report: DoctorReport): string {
  const { identity } = report;
  const address = identity.public_address
    ? `${identity.public_address} (${identity.public_address_source === 'configured' ? 'configured' : 'echoed by the test host'})`
    : 'unknown';
  const lines = [
    `Probing as ${address}, HELO ${identity.helo_name}, MAIL FROM <${identity.mail_from}>, ${identity.proxy ? `through SOCKS5 ${identity.proxy}` : 'direct'}`,
    '',
  ];
  for (const check of report.checks) {
    lines.push(`${LABEL[check.status].padEnd(8)} ${check.title}`);
    lines.push(`         ${check.message}`);
  }
  const count = (status: keyof typeof LABEL) =>
    report.checks.filter((check) => check.status === status).length;
  lines.push(
    '',
    `${count('failed')} failed, ${count('warning')} warning${count('warning') === 1 ? '' : 's'}, ${count('ok')} ok (${report.duration_ms} ms)`,
  );
  return `${lines.join('\n')}\n`;
}
