import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBodySchema, ServiceError } from '@svc/core';
import {
  FEEDBACK_PROVIDER_IDS,
  type FeedbackProvider,
  feedbackProvider,
  type ProviderCredentials,
  recordedEvent,
  snsSubscribeUrl,
} from '@svc/feedback';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ServerFeedback } from '../feedback/serve-feedback.js';
import {
  CredentialsBody,
  ProviderListSchema,
  ProviderParams,
  ProviderSchema,
  ReceiptSchema,
  ReceiveQuery,
  StatsQuery,
  StatsSchema,
} from './feedback-schemas.js';
import { authOf } from './keys.js';

/** Most bytes of one provider webhook body (SendGrid batches events; 5,000 fit well inside). */
export const FEEDBACK_BODY_BYTES = 4 * 1024 * 1024;
const DAY_MS = 86_400_000;

const sealContext = (account: string, provider: string) => `feedback-credentials:${account}:${provider}`;
const webhookPath = (provider: string, account: string) => `/v2/feedback/${provider}?account=${account}`;

/**
 * Delivery feedback (docs/api.md, "Delivery feedback"): each account configures the providers it sends
 * through (`PUT /v2/feedback/providers/{provider}`, its credentials sealed under the server key),
 * points their webhooks at `POST /v2/feedback/{provider}?account=…`, and its verifications then
 * carry the history those events build. Without a feedback store (`feedback: false`) these routes
 * answer 404.
 */
export const feedbackRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const feedbackOf = (): ServerFeedback => {
    const feedback = app.svc.feedback;
    if (!feedback) throw new ServiceError('not_found', 'delivery feedback is off on this server');
    return feedback;
  };
  const providerOf = (id: string): FeedbackProvider => {
    const provider = feedbackProvider(id);
    if (!provider) throw new ServiceError('not_found', `no feedback provider ${JSON.stringify(id)}`);
    return provider;
  };

  // The receiving route reads its body as bytes: signatures are over the exact bytes sent, and SNS
  // posts JSON as text/plain. Registered in a child scope so the other routes keep the JSON parser.
  await app.register(async (scope) => {
    const receiver = scope.withTypeProvider<TypeBoxTypeProvider>();
    receiver.removeAllContentTypeParsers();
    receiver.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: FEEDBACK_BODY_BYTES },
      (_request, body, done) => done(null, body),
    );
    receiver.post(
      '/v2/feedback/:provider',
      {
        bodyLimit: FEEDBACK_BODY_BYTES,
        config: { endpoint: 'feedback_receive' },
        schema: {
          operationId: 'receiveFeedback',
          tags: ['feedback'],
          summary: "Receive an email provider's delivery, bounce and complaint events",
          description:
            "Point the provider's webhook here with the account's id in `account`. No API key: the request must prove itself the provider's way (SNS message signature, SendGrid's ECDSA signature, Mailgun's HMAC, Svix headers for Resend, basic auth or a bearer token for Postmark, Brevo and the generic form) with the credentials the account configured (PUT /v2/feedback/providers/{provider}); otherwise 401 `invalid_api_key` and nothing is stored. Signed timestamps more than 5 minutes off are refused (replays). Events are recorded once per provider event id, so retries are harmless. An SNS subscription confirmation is verified and confirmed; when Amazon cannot be reached for its signing certificate or the confirmation, 503 `upstream_timeout` (SNS delivers again). A body larger than the provider sends is 400. Not billed.",
          params: ProviderParams(FEEDBACK_PROVIDER_IDS),
          querystring: ReceiveQuery,
          response: {
            200: ReceiptSchema,
            400: ErrorBodySchema,
            401: ErrorBodySchema,
            404: ErrorBodySchema,
            503: ErrorBodySchema,
          },
        },
      },
      async (request) => {
        const feedback = feedbackOf();
        const provider = providerOf(request.params.provider);
        const { account } = request.query;
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        // Refused before anything parses it: unauthenticated bytes cost no more than the provider sends.
        if (rawBody.length > provider.maxBodyBytes) {
          throw new ServiceError(
            'invalid_request',
            `${provider.id} feedback: the body is larger than ${provider.id}'s webhooks send (${provider.maxBodyBytes} bytes)`,
          );
        }
        const sealed = await feedback.store.providerCredentials(account, provider.id);
        if (sealed === null) {
          throw new ServiceError(
            'invalid_api_key',
            `${provider.id} feedback is not configured for this account`,
          );
        }
        const credentials = JSON.parse(
          app.svc.secrets.unseal(sealed, sealContext(account, provider.id)),
        ) as ProviderCredentials;
        const call = { headers: headersOf(request), rawBody };
        await provider.verify(call, credentials, {
          now: new Date(app.svc.now()),
          fetchCertificate: feedback.fetchCertificate,
        });
        if (provider.id === 'ses') {
          const subscribeUrl = snsSubscribeUrl(rawBody);
          if (subscribeUrl) {
            await feedback.confirmSubscription(subscribeUrl).catch((error: Error) => {
              // SNS sends the confirmation again when this request fails.
              throw new ServiceError(
                'upstream_timeout',
                `ses feedback: confirming the SNS subscription failed (${error.message})`,
                {
                  cause: error,
                },
              );
            });
            return {
              object: 'feedback_receipt' as const,
              received: 0,
              stored: 0,
              duplicates: 0,
              subscription_confirmed: true,
            };
          }
        }
        let body: unknown;
        try {
          body = JSON.parse(rawBody.toString('utf8'));
        } catch {
          throw new ServiceError('invalid_request', `${provider.id} feedback: the body is not JSON`);
        }
        const events = provider.parse(body, call).map(recordedEvent);
        const { stored, duplicates } = await feedback.store.record(account, events);
        request.logFields = {
          feedback_provider: provider.id,
          feedback_events: events.length,
          feedback_stored: stored,
        };
        return { object: 'feedback_receipt' as const, received: events.length, stored, duplicates };
      },
    );
  });

  app.put(
    '/v2/feedback/providers/:provider',
    {
      config: { endpoint: 'feedback_provider_put' },
      schema: {
        operationId: 'putFeedbackProvider',
        tags: ['feedback'],
        summary: 'Configure an email provider for delivery feedback',
        description:
          "Stores what the provider's webhook proves itself with (sealed under the server key, never shown again) and answers the path to point the webhook at. Replaces earlier credentials. Live keys only. 400 names what the provider needs when the body lacks it.",
        params: ProviderParams(FEEDBACK_PROVIDER_IDS),
        body: CredentialsBody,
        response: { 200: ProviderSchema, 400: ErrorBodySchema },
      },
    },
    async (request) => {
      const feedback = feedbackOf();
      const provider = providerOf(request.params.provider);
      const { account } = authOf(request.auth);
      const { secret, public_key, basic_auth, topic_arns } = request.body;
      const credentials: ProviderCredentials = {
        ...(secret !== undefined && { secret }),
        ...(public_key !== undefined && { publicKey: public_key }),
        ...(basic_auth !== undefined && { basicAuth: basic_auth }),
        ...(topic_arns !== undefined && { topicArns: topic_arns }),
      };
      const problem = provider.checkCredentials(credentials);
      if (problem) throw new ServiceError('invalid_request', `${provider.id} feedback needs ${problem}`);
      const at = new Date(app.svc.now()).toISOString();
      const sealed = app.svc.secrets.seal(JSON.stringify(credentials), sealContext(account.id, provider.id));
      await feedback.store.setProvider(account.id, provider.id, sealed, at);
      return {
        object: 'feedback_provider' as const,
        provider: provider.id,
        configured_at: at,
        webhook_path: webhookPath(provider.id, account.id),
      };
    },
  );

  app.get(
    '/v2/feedback/providers',
    {
      config: { endpoint: 'feedback_providers_list' },
      schema: {
        operationId: 'listFeedbackProviders',
        tags: ['feedback'],
        summary: 'The email providers configured for delivery feedback',
        response: { 200: ProviderListSchema },
      },
    },
    async (request) => {
      const { account } = authOf(request.auth);
      const providers = await feedbackOf().store.providers(account.id);
      return {
        object: 'list' as const,
        data: providers.map(({ provider, configuredAt }) => ({
          object: 'feedback_provider' as const,
          provider,
          configured_at: configuredAt,
          webhook_path: webhookPath(provider, account.id),
        })),
      };
    },
  );

  app.delete(
    '/v2/feedback/providers/:provider',
    {
      config: { endpoint: 'feedback_provider_delete' },
      schema: {
        operationId: 'deleteFeedbackProvider',
        tags: ['feedback'],
        summary: "Forget a provider's credentials: its webhooks are refused from then on",
        description: 'Recorded events stay. Live keys only. 404 when the provider was not configured.',
        params: ProviderParams(FEEDBACK_PROVIDER_IDS),
        response: { 204: Type.Null({ description: 'Forgotten: no body' }), 404: ErrorBodySchema },
      },
    },
    async (request, reply) => {
      const { account } = authOf(request.auth);
      const removed = await feedbackOf().store.removeProvider(account.id, request.params.provider);
      if (!removed)
        throw new ServiceError('not_found', `${request.params.provider} feedback is not configured`);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v2/feedback/stats',
    {
      config: { endpoint: 'feedback_stats' },
      schema: {
        operationId: 'getFeedbackStats',
        tags: ['feedback'],
        summary: 'Events per provider, bounce rates per domain, and what the feedback changed',
        querystring: StatsQuery,
        response: { 200: StatsSchema },
      },
    },
    async (request) => {
      const { account } = authOf(request.auth);
      const since = request.query.since
        ? new Date(request.query.since).toISOString()
        : new Date(app.svc.now() - 30 * DAY_MS).toISOString();
      const stats = await feedbackOf().store.stats(account.id, since);
      return { object: 'feedback_stats' as const, ...stats };
    },
  );
};

/** The request's headers, lower-cased, one value each (a repeated header's values joined). */
function headersOf(request: FastifyRequest): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
