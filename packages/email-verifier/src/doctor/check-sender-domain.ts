import { type DoctorDnsAsk, describeDnsFailure, rcodeName } from './dns-query.js';
import type { ResolvedDoctorOptions } from './options.js';
import type { DoctorCheck } from './report.js';

/**
 * The domain receivers check for the envelope sender: SPF (one `v=spf1` TXT record) and a way to
 * receive bounces (MX, or an A record as implicit MX). With the null sender `<>` receivers check
 * SPF on the HELO name instead (RFC 7208 §2.3), and no MX is needed.
 */
export async function checkSenderDomain(o: ResolvedDoctorOptions, ask: DoctorDnsAsk): Promise<DoctorCheck> {
  const nullSender = o.mailFrom === '';
  const domain = nullSender ? o.heloName.toLowerCase() : (o.mailFrom.split('@')[1] ?? '').toLowerCase();
  const subject = nullSender
    ? `the HELO name ${domain} (the null sender <> is checked by its HELO name)`
    : `the MAIL FROM domain ${domain}`;
  const Subject = subject.charAt(0).toUpperCase() + subject.slice(1);
  const check = (status: DoctorCheck['status'], message: string, details: Record<string, unknown>) => ({
    id: 'sender_domain',
    group: 'identity' as const,
    title: nullSender ? 'Sender (null sender: HELO name)' : 'Sender domain',
    status,
    message,
    details: { domain, null_sender: nullSender, ...details },
  });

  let spf: string[];
  try {
    const reply = await ask(domain, 'TXT');
    if (reply.rcode === 3) {
      return check(
        'failed',
        `${Subject} does not exist in DNS (NXDOMAIN): receivers refuse such senders. ${nullSender ? 'Use a HELO name that exists (--helo).' : 'Use a sender at a domain you own (--from).'}`,
        {
          exists: false,
          spf: null,
          mx: null,
        },
      );
    }
    if (reply.rcode !== 0) throw new Error(rcodeName(reply.rcode));
    spf = reply.values.filter((value) => /^v=spf1(\s|$)/i.test(value));
  } catch (error) {
    return check(
      'warning',
      `Could not read the TXT records of ${domain} (${describeDnsFailure(error)}). Run again later.`,
      {
        exists: null,
        spf: null,
        mx: null,
      },
    );
  }

  let mx: string[] | null = null;
  let hasAddress = false;
  if (!nullSender) {
    try {
      mx = (await ask(domain, 'MX')).values;
      if (mx.length === 0) hasAddress = (await ask(domain, 'A')).values.length > 0;
    } catch (error) {
      return check(
        'warning',
        `Could not read the MX records of ${domain} (${describeDnsFailure(error)}). Run again later.`,
        {
          exists: true,
          spf,
          mx: null,
        },
      );
    }
  }
  const details = { exists: true, spf, mx };
  if (spf.length > 1) {
    return check(
      'failed',
      `${Subject} has ${spf.length} SPF records; SPF allows one, so receivers get a permanent error. Merge them into one TXT record.`,
      details,
    );
  }
  if (
    !nullSender &&
    mx !== null &&
    (mx.length === 0 || mx.every((exchange) => exchange === '' || exchange === '.')) &&
    !hasAddress
  ) {
    return check(
      'failed',
      `${Subject} has no MX (and no A record): it cannot receive bounces, and receivers refuse such senders. Add an MX record, or send from a domain that has one (--from).`,
      details,
    );
  }
  if (spf.length === 0) {
    return check(
      'warning',
      `${Subject} has no SPF record: receivers cannot tell that this host may use it. Publish a TXT record such as "v=spf1 ip4:<your public address> -all"${nullSender ? '' : ' (add the ip4: to the existing mail senders of the domain)'}.`,
      details,
    );
  }
  return check(
    'ok',
    `${Subject} has SPF (${spf[0]})${nullSender ? '' : ` and ${mx && mx.length > 0 ? `MX ${mx[0]}` : 'an A record as implicit MX'}`}.`,
    details,
  );
}
