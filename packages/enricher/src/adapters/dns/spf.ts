/**
 * The parts of an SPF record (RFC 7208) that name other senders: `include:` mechanisms and the
 * `redirect=` modifier. Everything else (ip4, a, mx, all, exp, macros) says nothing about which
 * services send mail for the domain.
 */

/** A TXT record's chunks joined as RFC 7208 §3.3 says (no separator). */
export function joinTxt(chunks: readonly string[]): string {
  return chunks.join('');
}

/** The domain's SPF record, or null (none, or several, which RFC 7208 §4.5 makes a permerror). */
export function findSpf(records: readonly string[]): string | null {
  const spf = records.filter((record) => /^v=spf1(\s|$)/i.test(record.trim()));
  return spf.length === 1 ? (spf[0] as string) : null;
}

/** Hosts an SPF record delegates to, lower-cased, in record order; macro hosts are skipped. */
export function spfTargets(record: string): string[] {
  const targets: string[] = [];
  for (const term of record.trim().split(/\s+/).slice(1)) {
    const match = /^[+\-~?]?include:(.+)$/i.exec(term) ?? /^redirect=(.+)$/i.exec(term);
    const host = match?.[1]?.toLowerCase().replace(/\.$/, '');
    // A macro (%{d}) expands per message: no fixed host to look at.
    if (host && !host.includes('%')) targets.push(host);
  }
  return targets;
}
