import { MAX_USAGE_INCREMENTS, type UsageCredit, type UsageIncrement } from '../store.js';

// Argument checks and orderings every ControlPlaneStore shares, so the stores cannot drift apart.

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** Usage months are UTC calendar months written `YYYY-MM`; anything else is a caller's bug. */
export function assertMonth(month: string): void {
  if (typeof month !== 'string' || !MONTH.test(month)) {
    throw new TypeError(`month must be YYYY-MM, got ${JSON.stringify(month)}`);
  }
}

const DAY = /^(\d{4}-(0[1-9]|1[0-2]))-(0[1-9]|[12]\d|3[01])$/;

/** A usage day is `YYYY-MM-DD` (UTC) inside the month it is recorded in. */
export function assertDay(day: string, month: string): void {
  if (typeof day !== 'string' || !DAY.test(day) || day.slice(0, 7) !== month) {
    throw new TypeError(`day must be YYYY-MM-DD within ${month}, got ${JSON.stringify(day)}`);
  }
}

/** By day, then by endpoint name. */
export function byDayThenEndpoint(
  a: { day: string; endpoint: string },
  b: { day: string; endpoint: string },
): number {
  if (a.day !== b.day) return a.day < b.day ? -1 : 1;
  return a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0;
}

/** Units are whole and positive: a call that bills nothing is not recorded at all. */
export function assertUnits(units: number): void {
  if (!Number.isSafeInteger(units) || units < 1) {
    throw new TypeError(`units must be a positive integer, got ${units}`);
  }
}

/** Oldest first; the id breaks ties between records made in the same millisecond. */
export function byCreation(
  a: { created_at: number; id: string },
  b: { created_at: number; id: string },
): number {
  if (a.created_at !== b.created_at) return a.created_at - b.created_at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Every line of an `addUsage` batch is checked before any is added (all or none). */
export function assertIncrements(lines: readonly UsageIncrement[]): void {
  if (!Array.isArray(lines)) throw new TypeError('addUsage takes an array of usage lines');
  if (lines.length > MAX_USAGE_INCREMENTS) {
    throw new TypeError(`addUsage takes at most ${MAX_USAGE_INCREMENTS} lines at once, got ${lines.length}`);
  }
  for (const line of lines) {
    assertMonth(line.month);
    // 0 units is a real line: calls whose units were all credited back (a batch of misses),
    // which copyControlPlane carries over as they are.
    if (!Number.isSafeInteger(line.units) || line.units < 0) {
      throw new TypeError(`units must be a whole number of at least 0, got ${line.units}`);
    }
    if (!Number.isSafeInteger(line.calls) || line.calls < 1) {
      throw new TypeError(`calls must be a positive integer, got ${line.calls}`);
    }
    if (line.day !== undefined) assertDay(line.day, line.month);
  }
}

/** A credit names its key (at most 200 characters), a month, whole positive units and its day, if any. */
export function assertCredit(credit: UsageCredit): void {
  if (typeof credit.key !== 'string' || credit.key === '' || credit.key.length > 200) {
    throw new TypeError(
      `a usage credit needs a key of 1 to 200 characters, got ${JSON.stringify(credit.key)}`,
    );
  }
  assertMonth(credit.month);
  assertUnits(credit.units);
  if (credit.day !== undefined) assertDay(credit.day, credit.month);
}
