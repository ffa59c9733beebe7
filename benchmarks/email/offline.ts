// Offline classification (no network): our syntax + lists + typo + classify pipeline against
// mailchecker's isValid and deep-email-validator's regex + typo + disposable stages.
import { createRequire } from 'node:module';
import { classify, createLists, parseAddress, suggestDomain } from '@svc/email-verifier';
import { validate } from 'deep-email-validator';
import { type Measurement, measure, printTable } from '../lib/measure.js';
import { ADDRESS_MIX, generateAddresses } from './addresses.js';

const require = createRequire(import.meta.url);
const mailchecker = require('mailchecker') as typeof import('mailchecker');

const ADDRESSES = Number(process.env.EMAIL_OFFLINE_ADDRESSES ?? 1_000_000);
/** deep-email-validator may be given fewer addresses (its rate is compared); by default all of them. */
const DEEP_ADDRESSES = Math.min(ADDRESSES, Number(process.env.EMAIL_OFFLINE_DEEP_ADDRESSES ?? ADDRESSES));
/** Each variant runs this many times, interleaved; the fastest run is reported. */
const ROUNDS = Number(process.env.EMAIL_OFFLINE_ROUNDS ?? 3);
/** The answers of the three libraries are compared on this many addresses. */
const ANSWER_SAMPLE = 100_000;

/** Counts per verdict, printed under the table so each variant's answers can be compared. */
type Tally = Record<string, number>;
const bump = (tally: Tally, key: string) => {
  tally[key] = (tally[key] ?? 0) + 1;
};
const percent = (tally: Tally, total: number) =>
  Object.entries(tally)
    .sort((a, b) => b[1] - a[1])
    .map(([key, value]) => `${key} ${((100 * value) / total).toFixed(1)}%`)
    .join(', ');

/** Runs the offline suite and prints its table: ours vs mailchecker vs deep-email-validator, no network. */
export async function runEmailOfflineBenchmark(): Promise<Measurement[]> {
  const addresses = generateAddresses(ADDRESSES);
  const deepAddresses = addresses.slice(0, DEEP_ADDRESSES);
  const lists = createLists();
  // Warm every variant on a slice that is not measured, so list loading and JIT compilation of the
  // first calls do not count against anyone.
  const warm = generateAddresses(20_000, 99);
  // What the verifier does offline for each address, with DNS not asked (domainStatus not_checked).
  const classifyOffline = (input: string) => {
    const parsed = parseAddress(input);
    if (!parsed.ok) return classify({ syntaxValid: false });
    const { asciiDomain, local } = parsed.address;
    return classify({
      syntaxValid: true,
      addressLiteral: parsed.address.isAddressLiteral,
      domainStatus: 'not_checked',
      disposable: lists.isDisposable(asciiDomain),
      role: lists.isRole(local),
      free: lists.isFree(asciiDomain),
      typoSuggestion: suggestDomain(asciiDomain),
    });
  };
  const ours = (tally: Tally | null, input: string, reasons: Tally | null = null) => {
    const verdict = classifyOffline(input);
    if (tally) bump(tally, verdict.state);
    if (reasons) for (const reason of verdict.reasons) bump(reasons, reason);
    return verdict.quality_score;
  };
  const deep = async (tally: Tally | null, email: string) => {
    const result = await validate({
      email,
      validateRegex: true,
      validateTypo: true,
      validateDisposable: true,
      validateMx: false,
      validateSMTP: false,
    });
    if (tally) bump(tally, result.valid ? 'valid' : (result.reason ?? 'invalid'));
    return result.valid;
  };
  let sink = 0;
  for (const input of warm) {
    sink += ours(null, input);
    sink += mailchecker.isValid(input) ? 1 : 0;
  }
  for (const input of warm.slice(0, 5_000)) sink += (await deep(null, input)) ? 1 : 0;

  const tallies = { ours: {} as Tally, ourReasons: {} as Tally, mailchecker: {} as Tally, deep: {} as Tally };
  const variants: Array<{ name: string; inputs: string[]; note: string; run: () => Promise<void> | void }> = [
    {
      name: 'mailchecker isValid',
      inputs: addresses,
      note: 'regex + disposable list',
      run: () => {
        for (const input of addresses) sink += mailchecker.isValid(input) ? 1 : 0;
      },
    },
    {
      name: 'ours: parse + disposable + role + free + typo + classify',
      inputs: addresses,
      note: 'full verdict: state, score, reasons',
      run: () => {
        for (const input of addresses) sink += ours(null, input);
      },
    },
    {
      name: 'deep-email-validator validate (regex + typo + disposable)',
      inputs: deepAddresses,
      note: `awaited one by one${
        deepAddresses.length < addresses.length
          ? `; first ${deepAddresses.length.toLocaleString('en')} addresses only, rate compared`
          : ''
      }`,
      run: async () => {
        for (const input of deepAddresses) sink += (await deep(null, input)) ? 1 : 0;
      },
    },
  ];
  // Interleaved rounds, best time kept per variant: other load on the machine only ever slows a run.
  const rows: Measurement[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, variant] of variants.entries()) {
      const row = await measure(variant.name, variant.inputs.length, variant.run, variant.note);
      const best = rows[index];
      if (!best || row.seconds < best.seconds) rows[index] = row;
    }
  }
  // The answers, outside the timed runs: what each library said about the same inputs.
  const sample = addresses.slice(0, ANSWER_SAMPLE);
  for (const input of sample) {
    ours(tallies.ours, input, tallies.ourReasons);
    bump(tallies.mailchecker, mailchecker.isValid(input) ? 'valid' : 'invalid');
    await deep(tallies.deep, input);
  }
  if (sink === -1) console.log(sink);

  printTable(
    `Email offline: ${addresses.length.toLocaleString('en')} generated addresses (${Object.entries(
      ADDRESS_MIX,
    )
      .map(([kind, share]) => `${Math.round(share * 100)}% ${kind}`)
      .join(', ')}), best of ${ROUNDS} interleaved runs`,
    rows,
    'mailchecker isValid',
  );
  console.log(`\nAnswers on the first ${sample.length.toLocaleString('en')} addresses:`);
  console.log(`- ours, states: ${percent(tallies.ours, sample.length)}`);
  console.log(`- ours, reasons: ${percent(tallies.ourReasons, sample.length)}`);
  console.log(`- mailchecker: ${percent(tallies.mailchecker, sample.length)}`);
  console.log(`- deep-email-validator: ${percent(tallies.deep, sample.length)}`);
  return rows;
}
