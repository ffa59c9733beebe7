import { type Static, Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.js';
import { authenticate } from '../control-plane/accounts.js';

const Status = Type.Union([Type.Literal('ok'), Type.Literal('warning'), Type.Literal('failed')]);

const DoctorCheckSchema = Type.Object({
  id: Type.String({
    description:
      'Stable id: dns_resolver, outbound_smtp, public_address, reverse_dns, sender_domain, blocklist:<zone>',
  }),
  group: Type.Union([
    Type.Literal('dns'),
    Type.Literal('smtp'),
    Type.Literal('identity'),
    Type.Literal('blocklists'),
  ]),
  title: Type.String(),
  status: Status,
  message: Type.String({ description: 'What was found and what to do, for people' }),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'The facts behind it, per check' }),
});

/** `probing` in GET /v2/health: the email probing self-check (`svc doctor`), owner only. */
export const ProbingHealthSchema = Type.Object(
  {
    state: Type.Union([Type.Literal('idle'), Type.Literal('running'), Type.Literal('ready')], {
      description: 'idle: no run yet; running: a run is under way (report is the previous one); ready',
    }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    next_run_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'After this, the next owner request starts a new run',
    }),
    report: Type.Union([
      Type.Object({
        status: Status,
        checked_at: Type.String({ format: 'date-time' }),
        duration_ms: Type.Integer(),
        identity: Type.Object({
          public_address: Type.Union([Type.String(), Type.Null()]),
          public_address_source: Type.Union([
            Type.Literal('configured'),
            Type.Literal('ehlo_reply'),
            Type.Null(),
          ]),
          helo_name: Type.String(),
          mail_from: Type.String(),
          proxy: Type.Union([Type.String(), Type.Null()]),
        }),
        checks: Type.Array(DoctorCheckSchema),
      }),
      Type.Null(),
    ]),
  },
  {
    description:
      "The email probing self-check (port 25, public address, reverse DNS, sender domain, blocklists, DNS), shown only to the server's owner account; run in the background at most every 6 hours",
  },
);

/** The `probing` field of GET /v2/health. */
export type ProbingHealthBody = Static<typeof ProbingHealthSchema>;

/** The owner account: the oldest one (the account `svc serve` created on its first start). */
const ownerIds = new WeakMap<ServerContext, string>();
async function ownerAccountId(svc: ServerContext): Promise<string | null> {
  const known = ownerIds.get(svc);
  if (known) return known;
  const accounts = await svc.controlPlane.listAccounts();
  const oldest = accounts.reduce<(typeof accounts)[number] | undefined>(
    (first, account) =>
      !first ||
      account.created_at < first.created_at ||
      (account.created_at === first.created_at && account.id < first.id)
        ? account
        : first,
    undefined,
  );
  if (oldest) ownerIds.set(svc, oldest.id);
  return oldest?.id ?? null;
}

/**
 * Whether the request carries a key or token of the owner account. Health needs no key, so a
 * wrong key is not an error here; but it counts against the same per-address budget of failed
 * authentications as everywhere else. As there, a working credential is always looked up,
 * whatever other clients at its address failed.
 */
export async function isOwnerRequest(svc: ServerContext, request: FastifyRequest): Promise<boolean> {
  const header = request.headers['x-api-key'];
  if (typeof header !== 'string') return false;
  const perMinute = svc.options.limits.authFailuresPerMinute;
  const bucket = { ratePerSecond: perMinute / 60, burst: perMinute };
  const key = `auth-failures:${request.clientAddress?.ip ?? request.ip}`;
  const now = svc.now();
  const auth = await authenticate(svc, header);
  if (!auth) {
    await svc.limiter.take(key, bucket, now, 1);
    return false;
  }
  return auth.account.id === (await ownerAccountId(svc));
}

/** The probing findings for the owner (see isOwnerRequest), else null; null too when probing is off. */
export function probingFor(svc: ServerContext, owner: boolean, refresh: boolean): ProbingHealthBody | null {
  if (!owner || !svc.probingHealth) return null;
  const snapshot = svc.probingHealth.snapshot(refresh);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    state: snapshot.state,
    finished_at: iso(snapshot.finished_at),
    next_run_at: iso(snapshot.next_run_at),
    report: snapshot.report,
  };
}
