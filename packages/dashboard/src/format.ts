/** `2026-11-23 14:05:09 UTC`: one unambiguous form for every time on the page. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString('en-US');
}

/** A grace period in words: `1 hour`, `2 days`, `now`. */
export function duration(seconds: number): string {
  if (seconds <= 0) return 'now';
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} seconds`;
}

/** The grace periods the page offers when rotating a key or the webhook secret. */
export const GRACE_CHOICES = [0, 3_600, 86_400, 7 * 86_400];

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
