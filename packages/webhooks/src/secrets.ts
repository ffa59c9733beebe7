/**
 * The secrets as a non-empty list of non-empty strings, or a TypeError naming the problem.
 * An empty secret would make every signature forgeable by anyone who knows the scheme.
 */
export function secretList(secrets: string | readonly string[]): readonly string[] {
  if (secrets === undefined || secrets === null) {
    throw new TypeError(`no signing secret was given (got ${secrets})`);
  }
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (!Array.isArray(list)) {
    throw new TypeError(`secrets must be a string or an array of strings, got ${typeof secrets}`);
  }
  if (list.length === 0) throw new TypeError('at least one signing secret is needed (the list is empty)');
  list.forEach((secret: unknown, index) => {
    if (typeof secret !== 'string') {
      throw new TypeError(`signing secret [${index}] must be a string, got ${typeof secret}`);
    }
    if (secret === '') throw new TypeError(`signing secret [${index}] is an empty string`);
  });
  return list;
}
