import { type Static, Type } from '@fastify/type-provider-typebox';
import type { ResolverHealthSnapshot } from '@svc/email-verifier';
import type { ProbingHealthBody } from './health-probing.js';

/** One check of GET /v2/health. */
export const HealthCheckSchema = Type.Object({
  id: Type.String({
    description:
      'Stable id: control_plane (the store answers), dns_resolver (the verifier’s resolver resolves its canary names), probing (the owner’s email probing self-check)',
  }),
  status: Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('pending')], {
    description: 'pending: the first check is under way',
  }),
  message: Type.String({ description: 'What was found, for people' }),
});
export type HealthCheck = Static<typeof HealthCheckSchema>;

/** `control_plane`: reached only when the store answered (a dead store is a 500 before this). */
export const CONTROL_PLANE_OK: HealthCheck = {
  id: 'control_plane',
  status: 'ok',
  message: 'The control-plane store answers.',
};

/**
 * `dns_resolver` from the verifier's resolver health, or null when the check is off. The owner
 * sees which resolver; others see the canaries and answers only (no internal addresses).
 */
export function dnsResolverCheck(
  snapshot: ResolverHealthSnapshot | null,
  owner: boolean,
): HealthCheck | null {
  if (!snapshot) return null;
  const resolver = owner ? `The DNS resolver (${snapshot.resolver})` : 'The DNS resolver';
  const names = snapshot.canaries.map((canary) => canary.name).join(', ');
  if (snapshot.status === 'unchecked')
    return { id: 'dns_resolver', status: 'pending', message: `${resolver} is being checked.` };
  const denied = snapshot.canaries.filter((canary) => !canary.resolved);
  if (snapshot.status === 'healthy') {
    const minority = denied.length > 0 ? ` (${denied.map(describeDenial).join(', ')})` : '';
    return {
      id: 'dns_resolver',
      status: 'ok',
      message: `${resolver} resolves ${snapshot.canaries.length - denied.length} of its ${snapshot.canaries.length} canary names (${names})${minority}.`,
    };
  }
  return {
    id: 'dns_resolver',
    status: 'failed',
    message: `${resolver} denies names that exist (${denied.map(describeDenial).join(', ')}). Until it resolves them, no domain is called non-existent: verifications answer 503 upstream_timeout, bulk and batch records unknown / dns_unavailable (not billed).`,
  };
}

function describeDenial(canary: ResolverHealthSnapshot['canaries'][number]): string {
  return `${canary.answer} for ${canary.name}`;
}

/** `probing` for the owner: failed when a check of the last self-check report failed. */
export function probingCheck(probing: ProbingHealthBody | null): HealthCheck | null {
  if (!probing) return null;
  const report = probing.report;
  if (!report)
    return { id: 'probing', status: 'pending', message: 'The email probing self-check is running.' };
  const failed = report.checks.filter((check) => check.status === 'failed');
  if (failed.length === 0)
    return { id: 'probing', status: 'ok', message: 'No check of the email probing self-check failed.' };
  return {
    id: 'probing',
    status: 'failed',
    message: `The email probing self-check failed: ${failed.map((check) => check.title).join(', ')} (see probing).`,
  };
}
