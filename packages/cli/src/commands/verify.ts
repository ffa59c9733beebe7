import { VERIFICATION_STATES } from '@svc/core';
import {
  createDns2Resolver,
  createVerifier,
  type VerificationResult,
  type VerifierOptions,
} from '@svc/email-verifier';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { readRecords } from '../input/read-records.js';
import { createProgress } from '../output/progress.js';
import { openResultWriter } from '../output/result-writer.js';
import { renderTable } from '../output/table.js';
import { printJson } from '../output.js';
import { UsageError } from '../usage-error.js';

/** `svc verify`: verify addresses from arguments or a file. */
export const verifyCommand: Command = {
  name: 'verify',
  summary: 'Verify email addresses (syntax, lists, MX, optional SMTP mailbox probe)',
  usage: [
    '<email...> [--probe] [--no-disposable] [--json]',
    '--file <list.txt|list.csv> [--out results.ndjson|csv] [--probe]',
  ],
  details: `Options:
  --probe             ask the domain's mail servers about the mailbox (sends no mail; needs port 25)
  --no-disposable     do not flag disposable domains
  --file <path>       read addresses from a .txt (one per line) or .csv (first column) file
  --out <path>        write results to .ndjson or .csv; a summary by state goes to stderr
  --dns <host:port>   ask this DNS server instead of the system resolvers
  --smtp-port <n>     dial MX hosts on this port (default 25)
  --helo <name>       EHLO name (default: this host's name)
  --from <address>    envelope sender (default: the null sender <>)
  --allow-private-mx  also probe MX hosts on private addresses (intranets, tests)
Exit code 1 when any address is undeliverable.`,
  options: {
    probe: { type: 'boolean' },
    'no-disposable': { type: 'boolean' },
    file: { type: 'string' },
    out: { type: 'string' },
    dns: { type: 'string' },
    'smtp-port': { type: 'string' },
    helo: { type: 'string' },
    from: { type: 'string' },
    'allow-private-mx': { type: 'boolean' },
  },
  async run({ io, flags, values, positionals }) {
    const file = values.file as string | undefined;
    if (file && positionals.length > 0) throw new UsageError('give addresses or --file, not both', 'verify');
    if (!file && positionals.length === 0)
      throw new UsageError('give at least one email address or --file', 'verify');
    if (values.out && !file) throw new UsageError('--out needs --file', 'verify');
    const options = verifierOptions(values);
    const emails = file ? await readRecords(file, io.cwd) : positionals;
    if (emails.length > 10_000) {
      throw new UsageError(
        `at most 10,000 addresses per run, got ${emails.length}; use svc batch run for more`,
        'verify',
      );
    }
    const writer = values.out ? openResultWriter(values.out as string, io.cwd, 'verify') : undefined;
    const progress = file ? createProgress(io, new Set(emails).size, 'verify') : undefined;
    const verifier = createVerifier(options);
    let results: VerificationResult[];
    try {
      results = await verifier.verifyMany(
        emails,
        { probe_mailbox: values.probe === true, check_disposable: values['no-disposable'] !== true },
        { onProgress: (done) => progress?.update(done) },
      );
    } finally {
      progress?.done();
    }
    if (writer) {
      for (const result of results) writer.write(result as unknown as Record<string, unknown>);
      await writer.close();
    }
    if (file) io.stderr.write(summary(results));
    if (!writer) {
      if (flags.json) printJson(io, results.length === 1 && !file ? results[0] : results);
      else io.stdout.write(table(results));
    }
    return results.some((result) => result.state === 'undeliverable') ? EXIT.failure : EXIT.ok;
  },
};

function verifierOptions(values: Record<string, unknown>): VerifierOptions {
  const smtp: NonNullable<VerifierOptions['smtp']> = {};
  if (values['smtp-port'] !== undefined) {
    const port = Number(values['smtp-port']);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new UsageError(`--smtp-port must be a port number, got "${values['smtp-port']}"`, 'verify');
    }
    smtp.port = port;
  }
  if (typeof values.helo === 'string') smtp.heloName = values.helo;
  if (typeof values.from === 'string') smtp.mailFrom = values.from;
  if (values['allow-private-mx'] === true) smtp.allowPrivateAddresses = true;
  const options: VerifierOptions = { smtp };
  const built = (): VerifierOptions => {
    try {
      // Constructing once here turns a bad --helo or --from into a usage error, not a crash.
      createVerifier(options);
      return options;
    } catch (error) {
      throw new UsageError(
        (error as Error).message.replace(/^smtp\.heloName/, '--helo').replace(/^smtp\.mailFrom/, '--from'),
        'verify',
      );
    }
  };
  if (typeof values.dns === 'string') {
    try {
      options.dns = createDns2Resolver({ server: values.dns });
    } catch (error) {
      throw new UsageError(`--dns: ${(error as Error).message}`, 'verify');
    }
  }
  return built();
}

function summary(results: VerificationResult[]): string {
  const counts = Object.fromEntries(VERIFICATION_STATES.map((state) => [state, 0])) as Record<string, number>;
  for (const result of results) counts[result.state] = (counts[result.state] ?? 0) + 1;
  return `verify: ${results.length} addresses: ${VERIFICATION_STATES.map((state) => `${counts[state]} ${state}`).join(', ')}\n`;
}

function table(results: VerificationResult[]): string {
  return renderTable(
    ['email', 'state', 'score', 'mx', 'reasons'],
    results.map((result) => [
      result.email,
      result.state,
      result.quality_score.toFixed(2),
      result.mx.records[0] ?? '-',
      [...result.reasons, result.suggestion ? `did you mean ${result.suggestion}?` : '']
        .filter(Boolean)
        .join(', '),
    ]),
  );
}
