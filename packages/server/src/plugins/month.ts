/** The usage month (`YYYY-MM`, UTC) of a time in ms since the epoch. */
export function usageMonth(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** The usage day (`YYYY-MM-DD`, UTC) of a time in ms since the epoch. */
export function usageDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}
