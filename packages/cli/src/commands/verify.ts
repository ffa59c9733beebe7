import { MAX_BATCH_RECORDS, ServiceError, VERIFICATION_STATES } from '@svc/core';
import { createVerifier, type VerificationResult } from '@svc/email-verifier';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { readRecords } from '../input/read-records.js';
import { dnsFailureMessage, resolverUnavailableMessage } from '../output/dns-warning.js';
import { createProgress } from '../output/progress.js';
import { csvColumns, openResultWriter, prepareOutput } from '../output/result-writer.js';
import { renderTable } from '../output/table.js';
import { printError, printJson } from '../output.js';
import { UsageError } from '../usage-error.js';
import { VERIFIER_FLAGS, VERIFIER_FLAGS_HELP, verifierSettings } from '../verifier-flags.js';

/** Addresses one `svc verify` takes; more is a batch job's work. */
const MAX_VERIFY_ADDRESSES = 10_000;

/** `svc verify`: verify addresses from arguments or a file. */
export const verifyCommand: Command = {
  name: 'verify',
  summary: 'Verify email addresses (syntax, lists, MX, optional SMTP mailbox probe)',
  usage: [
    '<email...> [--probe] [--no-disposable] [--json]',
    '--file <list.txt|list.csv> [--out results.ndjson|csv] [--probe]',
  ],
  details: `Options:
${VERIFIER_FLAGS_HELP}
  --file <path>       read addresses from a .txt (one per line) or .csv (first column) file (at most 10,000)
  --out <path>        write results to .ndjson or .csv (created private, 0600); a summary by state goes to stderr
Exit code 1 when any address is undeliverable, when DNS gave no answer for any address, or when
addresses were left unverified because the resolver failed its canary check (dns_unavailable).`,
  options: {
    ...VERIFIER_FLAGS,
    file: { type: 'string' },
    out: { type: 'string' },
  },
  async run({ io, flags, values, positionals }) {
    const file = values.file as string | undefined;
    if (file && positionals.length > 0) throw new UsageError('give addresses or --file, not both', 'verify');
    if (!file && positionals.length === 0)
      throw new UsageError('give at least one email address or --file', 'verify');
    if (values.out && !file) throw new UsageError('--out needs --file', 'verify');
    const { options, checks } = verifierSettings(values, 'verify');
    const target = values.out ? await prepareOutput(values.out as string, io.cwd, 'verify') : undefined;
    const emails = file ? await readRecords(file, io.cwd) : positionals;
    if (emails.length > MAX_VERIFY_ADDRESSES) {
      throw new UsageError(
        `${file ?? 'the command line'} has ${emails.length.toLocaleString('en-US')} addresses; svc verify takes at most ${MAX_VERIFY_ADDRESSES.toLocaleString('en-US')} (use svc batch run --type verify_email for up to ${MAX_BATCH_RECORDS.toLocaleString('en-US')})`,
        'verify',
        false,
      );
    }
    const progress = file ? createProgress(io, new Set(emails).size, 'verify') : undefined;
    const verifier = createVerifier(options);
    let results: VerificationResult[];
    try {
      results = await verifier.verifyMany(emails, checks, { onProgress: (done) => progress?.update(done) });
    } finally {
      progress?.done();
    }
    if (target) {
      // The header fits every result: one not probed has `smtp: null`, a probed one smtp.code….
      const all = results as unknown as Record<string, unknown>[];
      const writer = await openResultWriter(target, { leading: csvColumns(all) });
      for (const result of results) writer.write(result as unknown as Record<string, unknown>);
      await writer.close();
    }
    if (file) io.stderr.write(summary(results));
    if (!target) {
      if (flags.json) printJson(io, results.length === 1 && !file ? results[0] : results);
      else io.stdout.write(table(results));
    }
    const unavailable = resolverUnavailableMessage(results, verifier.resolverHealth());
    if (unavailable) {
      printError(io, flags, new ServiceError('upstream_timeout', unavailable));
      return EXIT.failure;
    }
    const dnsFailure = dnsFailureMessage(results);
    if (dnsFailure) {
      printError(io, flags, new ServiceError('upstream_timeout', dnsFailure));
      return EXIT.failure;
    }
    return results.some((result) => result.state === 'undeliverable') ? EXIT.failure : EXIT.ok;
  },
};

function summary(results: VerificationResult[]): string {
  const counts = Object.fromEntries(VERIFICATION_STATES.map((state) => [state, 0])) as Record<string, number>;
  for (const result of results) counts[result.state] = (counts[result.state] ?? 0) + 1;
  const unverified = results.filter((result) => result.reasons.includes('dns_unavailable')).length;
  const note =
    unverified > 0 ? ` (${unverified} not verified: the DNS resolver failed its canary check)` : '';
  return `verify: ${results.length} addresses: ${VERIFICATION_STATES.map((state) => `${counts[state]} ${state}`).join(', ')}${note}\n`;
}

function table(results: VerificationResult[]): string {
  return renderTable(
    ['email', 'state', 'score', 'mx', 'provider', 'reasons'],
    results.map((result) => [
      result.email,
      result.state,
      result.quality_score.toFixed(2),
      result.mx.records[0] ?? '-',
      providerText(result.mx),
      [...result.reasons, result.suggestion ? `did you mean ${result.suggestion}?` : '']
        .filter(Boolean)
        .join(', '),
    ]),
  );
}

/** `google`, `microsoft via proofpoint`, `? via mimecast` (a gateway hiding the provider), or `-`. */
function providerText(mx: VerificationResult['mx']): string {
  const provider = mx.provider ?? (mx.gateway ? '?' : '-');
  return mx.gateway ? `${provider} via ${mx.gateway}` : provider;
}
