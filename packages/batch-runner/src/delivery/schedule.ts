/** Gaps after the first attempt at which a failed webhook is tried again (DESIGN §6). */
export const RETRY_OFFSETS_MS: readonly number[] = [
  0,
  5_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  3_600_000,
  2 * 3_600_000,
  4 * 3_600_000,
  8 * 3_600_000,
  16 * 3_600_000,
  24 * 3_600_000,
];

/** Nothing is attempted later than this after the first attempt. */
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;

/**
 * When to try again after attempt number `attempt` (1-based) failed, or null to give up. Each
 * planned offset gets up to ±10% jitter (never past the window); a Retry-After inside the window
 * moves the next attempt later, never earlier than planned.
 */
export function nextAttemptAt(
  attempt: number,
  firstAttemptAt: number,
  options: { retryAfterMs?: number; now: number; random?: () => number },
): number | null {
  const offset = RETRY_OFFSETS_MS[attempt];
  if (offset === undefined) return null;
  const random = options.random ?? Math.random;
  const jitter = offset * 0.1 * (random() * 2 - 1);
  let at = firstAttemptAt + Math.min(DELIVERY_WINDOW_MS, Math.round(offset + jitter));
  if (options.retryAfterMs !== undefined) at = Math.max(at, options.now + options.retryAfterMs);
  at = Math.max(at, options.now);
  return at - firstAttemptAt > DELIVERY_WINDOW_MS ? null : at;
}

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
