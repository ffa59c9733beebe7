// Three reusable rows: suggestions run once per unknown domain in million-address batches, so
// the distance computation allocates nothing for strings up to this length.
const MAX_FAST_LENGTH = 64;
let rowA = new Int32Array(MAX_FAST_LENGTH + 1);
let rowB = new Int32Array(MAX_FAST_LENGTH + 1);
let rowC = new Int32Array(MAX_FAST_LENGTH + 1);

/**
 * Damerau-Levenshtein distance (optimal string alignment: insertions, deletions, substitutions
 * and transpositions of adjacent characters each cost 1) between `a` and `b`, bounded: any
 * distance above `max` is reported as `max + 1`, and the computation stops as soon as it is
 * certain to exceed `max`.
 */
export function boundedDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0 || m === 0) return Math.min(Math.max(n, m), max + 1);
  if (m >= rowA.length) {
    rowA = new Int32Array(m + 1);
    rowB = new Int32Array(m + 1);
    rowC = new Int32Array(m + 1);
  }
  let beforePrevious = rowA;
  let previous = rowB;
  let current = rowC;
  for (let j = 0; j <= m; j++) previous[j] = j;
  for (let i = 1; i <= n; i++) {
    const ai = a.charCodeAt(i - 1);
    const aBefore = i > 1 ? a.charCodeAt(i - 2) : -1;
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const bj = b.charCodeAt(j - 1);
      let value = (previous[j - 1] as number) + (ai === bj ? 0 : 1);
      const deletion = (previous[j] as number) + 1;
      if (deletion < value) value = deletion;
      const insertion = (current[j - 1] as number) + 1;
      if (insertion < value) value = insertion;
      if (j > 1 && ai === b.charCodeAt(j - 2) && aBefore === bj) {
        const transposition = (beforePrevious[j - 2] as number) + 1;
        if (transposition < value) value = transposition;
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    const spare = beforePrevious;
    beforePrevious = previous;
    previous = current;
    current = spare;
  }
  const distance = previous[m] as number;
  return distance > max ? max + 1 : distance;
}
