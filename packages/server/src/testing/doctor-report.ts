import type { DoctorReport } from '@svc/email-verifier';

/**
 * A self-check report for a test's probing health to return: its status and time, the one check
 * given, and the identity of a probe that says HELO h.test and knows no public address.
 */
export function doctorReport(
  report: Pick<DoctorReport, 'status' | 'checked_at' | 'duration_ms'>,
  check: DoctorReport['checks'][number],
): DoctorReport {
  return {
    ...report,
    identity: {
      public_address: null,
      public_address_source: null,
      helo_name: 'h.test',
      mail_from: '',
      proxy: null,
    },
    checks: [check],
  };
}
