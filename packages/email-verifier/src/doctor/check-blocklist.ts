import { parseIp } from '@svc/ip-address';
import type { BlocklistSpec } from './blocklists.js';
import { type DoctorDnsAsk, describeDnsFailure, rcodeName } from './dns-query.js';
import type { DoctorCheck } from './report.js';
import { reversedAddress } from './reverse-name.js';

/** One answer of a blocklist, decoded. */
export interface DecodedAnswer {
  code: string;
  /** `listed`, `refused` (the list would not answer this query), or `unexpected` (not a 127/8 code). */
  kind: 'listed' | 'refused' | 'unexpected';
  meaning: string;
}

/** What one answer address of `list` means. */
export function decodeBlocklistAnswer(list: BlocklistSpec, code: string): DecodedAnswer {
  const refused = list.errorCodes?.[code];
  if (refused) return { code, kind: 'refused', meaning: refused };
  const meaning = list.codes[code];
  if (meaning) return { code, kind: 'listed', meaning };
  if (code.startsWith('127.255.255.'))
    return { code, kind: 'refused', meaning: 'the list refused the query' };
  if (code.startsWith('127.'))
    return { code, kind: 'listed', meaning: `listed (return code ${code}, not documented here)` };
  return {
    code,
    kind: 'unexpected',
    meaning: `an answer outside 127.0.0.0/8 is no blocklist code: the resolver may rewrite "no such name" answers (an ISP's search page)`,
  };
}

/** Is the public address on `list`? Decodes each answer, reads the TXT reason of a listing. */
export async function checkBlocklist(
  list: BlocklistSpec,
  address: string | null,
  ask: DoctorDnsAsk,
): Promise<DoctorCheck> {
  const check = (status: DoctorCheck['status'], message: string, details: Record<string, unknown> = {}) => ({
    id: `blocklist:${list.zone}`,
    group: 'blocklists' as const,
    title: list.name,
    status,
    message,
    details: { zone: list.zone, address, delisting: list.delisting, ...details },
  });
  if (address === null) {
    return check('warning', `Not checked: the public address is unknown (see the public address check).`, {
      skipped: true,
      listed: null,
    });
  }
  const { reversed, family } = reversedAddress(parseIp(address).canonical);
  if (family === 6 && !list.ipv6) {
    return check('ok', `${list.name} publishes no IPv6 addresses, so ${address} cannot be on it.`, {
      listed: false,
      skipped: true,
    });
  }
  const query = `${reversed}.${list.zone}`;
  let codes: string[];
  try {
    const reply = await ask(query, 'A');
    if (reply.rcode === 3) return notListed(list, address, query, ask, check);
    if (reply.rcode !== 0) {
      return check(
        'warning',
        `Can't tell: ${list.zone} answered ${rcodeName(reply.rcode)}. Run again later, or from another resolver.`,
        {
          query,
          listed: null,
          answers: [],
        },
      );
    }
    codes = reply.values;
  } catch (error) {
    return check(
      'warning',
      `Can't tell: no answer from ${list.zone} (${describeDnsFailure(error)}). Run again later.`,
      {
        query,
        listed: null,
        answers: [],
      },
    );
  }
  if (codes.length === 0) return notListed(list, address, query, ask, check);
  const answers = codes.map((code) => decodeBlocklistAnswer(list, code));
  const listings = answers.filter((answer) => answer.kind === 'listed');
  if (listings.length === 0) {
    return check(
      'warning',
      `Can't tell whether ${address} is on ${list.name}: ${answers.map((answer) => `${answer.code}: ${answer.meaning}`).join('; ')}.`,
      {
        query,
        listed: null,
        answers,
      },
    );
  }
  // The TXT record says why and often links the listing's own page.
  const reason = await ask(query, 'TXT').then(
    (reply) => reply.values.slice(0, 3),
    () => [] as string[],
  );
  const why = listings.map((answer) => answer.meaning).join('; ');
  return check(
    'failed',
    `${address} is listed on ${list.name} (${why})${reason.length > 0 ? `: "${reason[0]}"` : ''}. Receivers that use it refuse your probes; ${list.delisting ? `request removal at ${list.delisting}` : 'ask the list how to be removed'} once the cause is fixed, or probe from another address.`,
    { query, listed: true, answers, reason },
  );
}

/**
 * "Not listed" is only news from a list that answers: RFC 5782 §5 has every IPv4 list publish
 * 127.0.0.2 as a test entry, so a list that does not list it is dead, or refuses this resolver
 * (Spamhaus answers 127.255.255.x for it too), or the resolver fakes answers.
 */
async function notListed(
  list: BlocklistSpec,
  address: string,
  query: string,
  ask: DoctorDnsAsk,
  check: (status: DoctorCheck['status'], message: string, details?: Record<string, unknown>) => DoctorCheck,
): Promise<DoctorCheck> {
  if (list.testEntry === false)
    return check('ok', `${address} is not on ${list.name}.`, { query, listed: false, answers: [] });
  const testQuery = `2.0.0.127.${list.zone}`;
  const test = await ask(testQuery, 'A').then(
    (reply) => reply.values.map((code) => decodeBlocklistAnswer(list, code)),
    () => null,
  );
  if (test?.some((answer) => answer.kind === 'listed')) {
    return check('ok', `${address} is not on ${list.name}.`, { query, listed: false, answers: [] });
  }
  const why =
    test && test.length > 0
      ? test.map((answer) => `${answer.code}: ${answer.meaning}`).join('; ')
      : 'it does not list its RFC 5782 test entry 127.0.0.2, so the list is gone or does not answer this resolver';
  return check(
    'warning',
    `Can't tell whether ${address} is on ${list.name}: ${why}. Check from your own resolver, or drop the list.`,
    {
      query,
      listed: null,
      answers: [],
      test_query: testQuery,
    },
  );
}
