/**
 * A connection URL (PostgreSQL, Redis) as messages and logs may show it: its password replaced by
 * `***`, the rest as given. A string that is not a URL is not echoed at all (it may be a password
 * pasted in the wrong place): `unparsable` stands for it.
 */
export function urlWithoutPassword(url: string, unparsable = '(an unparsable URL)'): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return unparsable;
  }
}
