import type { BatchRunnerOptions } from '@svc/batch-runner';
import type { CliIo } from '../../io.js';
import { UsageError } from '../../usage-error.js';
import { privateWebhookTarget } from '../../webhook-target.js';

/** The signing secrets from --webhook-secret or SVC_WEBHOOK_SECRET (comma-separated, newest first). */
export function webhookSecrets(io: CliIo, values: Record<string, unknown>): string[] | undefined {
  const text = (values['webhook-secret'] as string | undefined) ?? io.env.SVC_WEBHOOK_SECRET;
  const secrets = text
    ?.split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
  return secrets?.length ? secrets : undefined;
}

/** The delivery settings for the runner or a dispatcher: the secrets, the SSRF guard's exception and the clock (CliIo.now). */
export function deliveryOptions(
  secrets: string[] | undefined,
  values: Record<string, unknown>,
  now?: () => number,
): BatchRunnerOptions['webhooks'] {
  if (!secrets) return undefined;
  return {
    secrets,
    pollIntervalMs: 250,
    ...(now ? { now } : {}),
    ...(values['allow-private-webhook'] === true ? { isAllowedAddress: () => true } : {}),
  };
}

/**
 * The webhook flags of `batch run`, checked before any work: a URL needs a secret, and a URL on a
 * private or reserved address is refused (unless --allow-private-webhook), since the delivery's
 * SSRF guard would refuse every attempt after the job finished.
 */
export async function webhookSettings(
  io: CliIo,
  values: Record<string, unknown>,
): Promise<{ url: string | undefined; secrets: string[] | undefined }> {
  const url = values['webhook-url'] as string | undefined;
  const secrets = webhookSecrets(io, values);
  if (!url) return { url, secrets };
  if (!secrets)
    throw new UsageError(
      '--webhook-url needs a signing secret: --webhook-secret or SVC_WEBHOOK_SECRET',
      'batch',
    );
  if (values['allow-private-webhook'] !== true) {
    const problem = await privateWebhookTarget(url);
    if (problem && 'refused' in problem) {
      throw new UsageError(
        `--webhook-url is on a private or reserved address (${problem.refused}); the delivery would refuse it. Pass --allow-private-webhook for an intranet or test receiver`,
        'batch',
        false,
      );
    }
    if (problem)
      io.stderr.write(`svc: warning: --webhook-url: ${problem.unresolved}; delivery will be retried\n`);
  }
  return { url, secrets };
}
