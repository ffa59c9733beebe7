import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { rotateWebhookSecret } from '../control-plane/accounts.js';
import { usageMonth } from '../plugins/month.js';
import {
  AccountSchema,
  emptyBodyIsObject,
  iso,
  NewWebhookSecretSchema,
  planView,
  RotateBody,
  webhookSecretView,
} from './account-schemas.js';
import { authOf } from './keys.js';

/** Default grace period of a rotated webhook secret: receivers get a day to switch. */
export const DEFAULT_SECRET_GRACE_SECONDS = 86_400;

/** The calling account: its plan and limits, this month's use, and its webhook signing secrets. */
export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v2/account',
    {
      config: { endpoint: 'account_get' },
      schema: {
        operationId: 'getAccount',
        tags: ['account'],
        summary: "The account's plan, limits, allowance left this month and webhook secret prefixes",
        response: { 200: AccountSchema },
      },
    },
    async (request) => {
      const { account, plan, environment } = authOf(request.auth);
      const now = app.svc.now();
      const month = usageMonth(now);
      const [units, secrets] = await Promise.all([
        app.svc.controlPlane.usedUnits(account.id, month),
        app.svc.controlPlane.activeWebhookSecrets(account.id, now),
      ]);
      return {
        id: account.id,
        name: account.name,
        created_at: iso(account.created_at),
        environment,
        plan: planView(plan),
        usage: {
          month,
          units,
          remaining: plan.monthly_allowance === null ? null : Math.max(0, plan.monthly_allowance - units),
        },
        webhook_secrets: secrets.map(webhookSecretView),
      };
    },
  );

  app.post(
    '/v2/account/webhook-secret/rotate',
    {
      config: { endpoint: 'webhook_secret_rotate' },
      preValidation: emptyBodyIsObject,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: ['account'],
        summary: 'A new webhook signing secret; the old one keeps signing for grace_seconds',
        description:
          'During the grace period every delivery carries a signature by each secret, so receivers can switch at their pace. The new secret is in this response only. The body is optional: without one the old secret signs for a day (86400 s).',
        body: RotateBody,
        response: { 201: NewWebhookSecretSchema },
      },
    },
    async (request, reply) => {
      const { account } = authOf(request.auth);
      const now = app.svc.now();
      const { secret, record, previousExpiresAt } = await rotateWebhookSecret(app.svc, {
        accountId: account.id,
        graceSeconds: request.body.grace_seconds ?? DEFAULT_SECRET_GRACE_SECONDS,
        now,
      });
      return reply.code(201).send({
        ...webhookSecretView(record),
        secret,
        previous_expires_at: iso(previousExpiresAt),
      });
    },
  );
};
