// A simulated company at a catch-all domain, and a sender whose delivery feedback teaches
// @svc/feedback the domain's address patterns. Every week the sender mails real people and some
// guessed addresses of the wrong pattern (they hard-bounce "550 5.1.1", mailbox-level); after each
// week a fixed sample of addresses never sent to (half real, half wrong-pattern guesses) is
// verified the way the verifier answers at a catch-all domain (risky, catch_all), with history
// applied. The simulation knows which addresses exist, so the pattern answers can be scored: a
// match raises a risky address's score (it never makes it deliverable), a mismatch lowers it.
// Synthetic and seeded: the figures measure the verdict rules on an assumed mix of patterns, not
// on any real company.
import type { EmailVerificationResult } from '@svc/core';
import {
  createDeliveryHistory,
  createMemoryFeedbackStore,
  type FeedbackEvent,
  recordedEvent,
} from '@svc/feedback';
import { seededRandom } from '@svc/testkit';

export interface CatchAllSimulationOptions {
  /** @default 1 */
  seed?: number;
  /** People at the company. @default 2000 */
  people?: number;
  /** @default 12 */
  weeks?: number;
  /** Messages to real people per week (a quarter of them to people mailed before). @default 40 */
  realPerWeek?: number;
  /** Messages to guessed wrong-pattern addresses per week. @default 15 */
  guessesPerWeek?: number;
  /** People held out of the sends whose real address and one wrong guess are verified each week. @default 100 */
  samplePeople?: number;
}

export interface SimulationWeek {
  week: number;
  /** Delivery and bounce events recorded so far. */
  events: number;
  /** Sample addresses verified (real + fake). */
  sample: number;
  /** Share of the sample still risky or unknown after history: pattern answers keep the state, so
   * only an address's own history moves it (a sample guess that a sent guess happened to equal). */
  riskyOrUnknown: number;
  /** Sample addresses made deliverable; only an address's own delivery can, and the sample is never mailed. */
  deliverable: number;
  /** Share of the sample with no pattern answer (neither match nor mismatch). */
  noPatternAnswer: number;
  matches: number;
  /** Of the addresses with a `catch_all_pattern_match` (a raised score), the share that exist; null when none. */
  matchPrecision: number | null;
  mismatches: number;
  /** Of the `catch_all_pattern_mismatch` answers, the share whose address does not exist; null when none. */
  mismatchPrecision: number | null;
}

const DOMAIN = 'northwind-catchall.example';
const ACCOUNT = 'acc_simulation';
const START = Date.parse('2026-01-05T09:00:00Z');
const WEEK_MS = 7 * 86_400_000;

// The company's own choice per mailbox, and the sender's guesses (a pattern nobody uses included).
const TRUE_MIX: Array<[Shape, number]> = [
  ['first.last', 0.75],
  ['f.last', 0.15],
  ['flast', 0.1],
];
const GUESS_MIX: Array<[Shape, number]> = [
  ['first.last', 0.5],
  ['f.last', 0.2],
  ['flast', 0.15],
  ['first.l', 0.15],
];
type Shape = 'first.last' | 'f.last' | 'flast' | 'first.l';

const FIRST = (
  'ada alan anna ben carla chen david elena emil fatima felix grace hana ivan jack jana karim lara ' +
  'leon lina luca maria marta max mia nadia noah olga omar paula pedro rosa sam sara sofia tom ' +
  'uma victor wei yara zoe amir bruno clara dario eva farid gina hugo ines joao kira lena milo nina'
).split(' ');
const LAST = (
  'adams baker costa diaz evans fischer garcia hansen ito jensen kowalski lopez meyer novak ortiz ' +
  'patel quinn rossi silva tanaka umar varga weber xu young zhang abbott becker cruz dubois ' +
  'eriksen ferreira gomez horvat iqbal jovanovic kim larsen moreau nguyen olsen petrov ramos ' +
  'schmidt torres ueda vogel walsh yilmaz zimmer alvarez berg chopra dahl ek fox gupta haas ' +
  'ivanova jung kaur lund moss nash owens park reyes singh tan vidal wolf'
).split(' ');

function pick<T>(next: () => number, mix: ReadonlyArray<[T, number]>): T {
  const total = mix.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = next() * total;
  for (const [value, weight] of mix) {
    roll -= weight;
    if (roll < 0) return value;
  }
  return (mix[mix.length - 1] as [T, number])[0];
}

function addressOf(first: string, last: string, shape: Shape): string {
  const local = {
    'first.last': `${first}.${last}`,
    'f.last': `${first[0]}.${last}`,
    flast: `${first[0]}${last}`,
    'first.l': `${first}.${last[0]}`,
  }[shape];
  return `${local}@${DOMAIN}`;
}

interface Person {
  first: string;
  last: string;
  address: string;
}

/** What the verifier answers at a catch-all domain: it accepts every address, so risky. */
function catchAllResult(address: string, at: Date): EmailVerificationResult {
  return {
    email: address,
    normalized: address,
    deliverable: false,
    state: 'risky',
    quality_score: 0.5,
    reasons: ['catch_all'],
    is_disposable: false,
    is_catch_all: true,
    mx: { accepts_mail: true, records: [`mx.${DOMAIN}`] },
    checked_at: at.toISOString(),
    request_id: 'req_simulation',
  } as EmailVerificationResult;
}

export async function simulateCatchAllFeedback(
  options: CatchAllSimulationOptions = {},
): Promise<SimulationWeek[]> {
  // Seeded, so every run sees the same company and sends.
  const next = seededRandom(options.seed ?? 1);
  const size = options.people ?? 2000;
  const weeks = options.weeks ?? 12;
  const realPerWeek = options.realPerWeek ?? 40;
  const guessesPerWeek = options.guessesPerWeek ?? 15;
  const samplePeople = options.samplePeople ?? 100;

  // The company: unique names, each mailbox of one shape; no two mailboxes share an address.
  const existing = new Set<string>();
  const names = new Set<string>();
  const people: Person[] = [];
  for (let tries = 0; people.length < size && tries < size * 50; tries++) {
    const first = FIRST[Math.floor(next() * FIRST.length)] as string;
    const last = LAST[Math.floor(next() * LAST.length)] as string;
    const address = addressOf(first, last, pick(next, TRUE_MIX));
    if (names.has(`${first} ${last}`) || existing.has(address)) continue;
    names.add(`${first} ${last}`);
    existing.add(address);
    people.push({ first, last, address });
  }
  if (people.length < size) throw new Error(`only ${people.length} unique people could be made`);

  /** A guess of another shape than the person's own that is nobody's address. */
  const wrongGuess = (person: Person): string | null => {
    for (let tries = 0; tries < 20; tries++) {
      const guess = addressOf(person.first, person.last, pick(next, GUESS_MIX));
      if (!existing.has(guess)) return guess;
    }
    return null;
  };

  // The held-out sample: the sender never mails these people, so only patterns can answer.
  const shuffled = people.map((person) => ({ person, key: next() })).sort((a, b) => a.key - b.key);
  const held = shuffled.slice(0, samplePeople).map(({ person }) => person);
  const mailable = shuffled.slice(samplePeople).map(({ person }) => person);
  const sample: Array<{ address: string; exists: boolean }> = [];
  for (const person of held) {
    sample.push({ address: person.address, exists: true });
    const fake = wrongGuess(person);
    if (fake) sample.push({ address: fake, exists: false });
  }

  const store = createMemoryFeedbackStore();
  const history = createDeliveryHistory({ store, clock: () => now });
  let now = new Date(START);
  let eventId = 0;
  let events = 0;
  const mailed: Person[] = [];
  let fresh = 0;
  const rows: SimulationWeek[] = [];

  for (let week = 1; week <= weeks; week++) {
    const weekStart = START + (week - 1) * WEEK_MS;
    const batch: FeedbackEvent[] = [];
    const at = () => new Date(weekStart + Math.floor(next() * WEEK_MS)).toISOString();
    for (let i = 0; i < realPerWeek; i++) {
      const repeat = mailed.length > 0 && next() < 0.25;
      const person = repeat
        ? (mailed[Math.floor(next() * mailed.length)] as Person)
        : (mailable[fresh++ % mailable.length] as Person);
      if (!repeat) mailed.push(person);
      batch.push({
        provider: 'generic',
        eventId: `evt_${++eventId}`,
        address: person.address,
        kind: 'delivered',
        at: at(),
        bounceType: null,
        diagnostic: null,
      });
    }
    for (let i = 0; i < guessesPerWeek; i++) {
      const person = mailable[Math.floor(next() * mailable.length)] as Person;
      const guess = wrongGuess(person);
      if (!guess) continue;
      batch.push({
        provider: 'generic',
        eventId: `evt_${++eventId}`,
        address: guess,
        kind: 'hard_bounce',
        at: at(),
        bounceType: 'hard',
        diagnostic: `smtp; 550 5.1.1 <${guess}>: Recipient address rejected: User unknown in virtual mailbox table`,
      });
    }
    await store.record(ACCOUNT, batch.map(recordedEvent));
    events += batch.length;

    now = new Date(weekStart + WEEK_MS);
    const results = await history.applyMany(
      ACCOUNT,
      sample.map(({ address }) => catchAllResult(address, now)),
    );
    let riskyOrUnknown = 0;
    let deliverable = 0;
    let noAnswer = 0;
    let matches = 0;
    let matchRight = 0;
    let mismatches = 0;
    let mismatchRight = 0;
    results.forEach((result, index) => {
      const { exists } = sample[index] as { exists: boolean };
      if (result.state === 'risky' || result.state === 'unknown') riskyOrUnknown++;
      if (result.state === 'deliverable') deliverable++;
      if (result.reasons.includes('catch_all_pattern_match')) {
        matches++;
        if (exists) matchRight++;
      } else if (result.reasons.includes('catch_all_pattern_mismatch')) {
        mismatches++;
        if (!exists) mismatchRight++;
      } else noAnswer++;
    });
    rows.push({
      week,
      events,
      sample: sample.length,
      riskyOrUnknown: riskyOrUnknown / sample.length,
      deliverable,
      noPatternAnswer: noAnswer / sample.length,
      matches,
      matchPrecision: matches === 0 ? null : matchRight / matches,
      mismatches,
      mismatchPrecision: mismatches === 0 ? null : mismatchRight / mismatches,
    });
  }
  return rows;
}

const pct = (share: number | null) => (share === null ? '–' : `${(100 * share).toFixed(1)}%`);

export async function runFeedbackSimulationBenchmark(): Promise<void> {
  const options = {
    seed: 1,
    people: 2000,
    weeks: 12,
    realPerWeek: 40,
    guessesPerWeek: 15,
    samplePeople: 100,
  };
  const rows = await simulateCatchAllFeedback(options);
  console.log('\n## Delivery feedback at a catch-all domain (simulated company)\n');
  console.log(
    `${options.people} people (75% first.last, 15% f.last, 10% flast), ${options.realPerWeek} sends to real ` +
      `people and ${options.guessesPerWeek} to wrong-pattern guesses per week (550 5.1.1); a fixed sample ` +
      `of ${options.samplePeople} unsent people (real address + one wrong guess) verified after each week; seed ${options.seed}.\n`,
  );
  console.log(
    '| week | events | risky/unknown | deliverable (n) | no pattern answer | pattern match (n) | of matches, real | pattern mismatch (n) | of mismatches, not real |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.week} | ${row.events} | ${pct(row.riskyOrUnknown)} | ${row.deliverable} | ${pct(row.noPatternAnswer)} | ${row.matches} | ` +
        `${pct(row.matchPrecision)} | ${row.mismatches} | ${pct(row.mismatchPrecision)} |`,
    );
  }
  console.log(
    "\nA match keeps the state risky and raises the score within risky's range; a mismatch keeps the " +
      'state and lowers the score. "Of matches, real" is the precision of a raised score.',
  );
}
