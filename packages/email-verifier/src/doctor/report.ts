/** How one check came out: `ok`, `warning` (probing works but something may cost results), `failed`. */
export type DoctorStatus = 'ok' | 'warning' | 'failed';

/** The areas checks belong to, in the order a report lists them. */
export type DoctorGroup = 'dns' | 'smtp' | 'identity' | 'blocklists';

/**
 * One finding. `id` is stable (`dns_resolver`, `outbound_smtp`, `public_address`, `reverse_dns`,
 * `sender_domain`, `blocklist:<zone>`); `message` is one or two sentences a person can act on;
 * `details` holds the facts behind it (check-specific, snake_case, JSON-safe).
 */
export interface DoctorCheck {
  id: string;
  group: DoctorGroup;
  title: string;
  status: DoctorStatus;
  message: string;
  details: Record<string, unknown>;
}

/** Who receivers see when the verifier probes. */
export interface ProbingIdentity {
  /** The address receivers see, or null when neither configured nor learned. */
  public_address: string | null;
  /** Where it came from: the configuration, or the test host's EHLO reply (through the proxy if one is set). */
  public_address_source: 'configured' | 'ehlo_reply' | null;
  helo_name: string;
  /** The envelope sender; '' is the null sender `<>`. */
  mail_from: string;
  /** `host:port` of the SOCKS5 proxy probes go through, or null for direct connections. */
  proxy: string | null;
}

/** What `runDoctor` returns: the worst status, the identity it checked and every finding. */
export interface DoctorReport {
  /** The worst status among the checks. */
  status: DoctorStatus;
  checked_at: string;
  duration_ms: number;
  identity: ProbingIdentity;
  checks: DoctorCheck[];
}

const SEVERITY: Record<DoctorStatus, number> = { ok: 0, warning: 1, failed: 2 };

/** The worst of some statuses (`ok` for none). */
export function worstStatus(statuses: Iterable<DoctorStatus>): DoctorStatus {
  let worst: DoctorStatus = 'ok';
  for (const status of statuses) if (SEVERITY[status] > SEVERITY[worst]) worst = status;
  return worst;
}
