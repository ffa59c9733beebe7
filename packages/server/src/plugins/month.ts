const DAY_MS = 86_400_000;

// The last UTC day asked about: nearly every call of a busy server falls in the same day, so the
// strings are made once a day instead of a Date and an ISO string per billable request.
let cachedDayStart = Number.NaN;
let cachedDay = '';
let cachedMonth = '';

function dayOf(now: number): string {
  if (!(now >= cachedDayStart && now < cachedDayStart + DAY_MS)) {
    cachedDayStart = Math.floor(now / DAY_MS) * DAY_MS;
    cachedDay = new Date(cachedDayStart).toISOString().slice(0, 10);
    cachedMonth = cachedDay.slice(0, 7);
  }
  return cachedDay;
}

/** The usage month (`YYYY-MM`, UTC) of a time in ms since the epoch. */
export function usageMonth(now: number): string {
  dayOf(now);
  return cachedMonth;
}

/** The usage day (`YYYY-MM-DD`, UTC) of a time in ms since the epoch. */
export function usageDay(now: number): string {
  return dayOf(now);
}
