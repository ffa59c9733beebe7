/**
 * Says so when addresses were left unverified because the resolver failed its canary check
 * (`dns_unavailable`): how many, and what the resolver denied.
 */
export function resolverUnavailableMessage(
  results: readonly { reasons: readonly string[] }[],
  health: { message: string } | null,
): string | undefined {
  const unverified = results.filter((result) => result.reasons.includes('dns_unavailable')).length;
  return unverifiedMessage(unverified, results.length, health);
}

/** The same from counts (`svc batch run`: a job's `dns_unavailable` count of its records). */
export function unverifiedMessage(
  unverified: number,
  total: number,
  health: { message: string } | null,
): string | undefined {
  if (unverified === 0) return undefined;
  const why = health?.message ?? 'the DNS resolver is not trusted';
  return `${unverified} of ${total} address${total === 1 ? ' was' : 'es were'} not verified (unknown, dns_unavailable): ${why}. No domain was called non-existent. Fix the resolver, ask another with --dns host:port, or name hosts it serves with --dns-canary (intranets)`;
}

/**
 * Says so when DNS gave nothing for any address: every address that reached the DNS stage came
 * back `dns_error` (no answer: the resolver is unreachable or failing) or `domain_not_found`, and
 * either some had no answer or at least two different domains "do not exist" (one unknown domain
 * is an ordinary result; every domain of a list missing means the resolver is lying or wrong).
 * Otherwise the user sees a table of `unknown` / `undeliverable` rows and no cause.
 */
export function dnsFailureMessage(
  results: readonly { email: string; reasons: readonly string[] }[],
): string | undefined {
  const looked = results.filter((result) => !result.reasons.includes('invalid_syntax'));
  if (looked.length === 0) return undefined;
  const unanswered = looked.filter((result) => result.reasons.includes('dns_error')).length;
  const missing = looked.filter((result) => result.reasons.includes('domain_not_found'));
  if (unanswered + missing.length < looked.length) return undefined;
  const domains = new Set(missing.map((result) => result.email.slice(result.email.lastIndexOf('@') + 1)));
  if (unanswered === 0 && domains.size < 2) return undefined;
  const what =
    unanswered === looked.length
      ? `no DNS answer for any of ${looked.length} address${looked.length === 1 ? '' : 'es'} (the resolver is unreachable or failing)`
      : unanswered === 0
        ? `DNS says none of the ${domains.size} domains exists`
        : `DNS failed for every address (${unanswered} without an answer, ${missing.length} with a domain that "does not exist")`;
  return `${what}; check the network or the resolver, or ask another DNS server with --dns host:port`;
}
