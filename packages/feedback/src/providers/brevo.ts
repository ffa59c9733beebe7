import { checkFeedbackEvent, type FeedbackEvent } from '../event.js';
import { BODY_LIMITS, type FeedbackProvider, isRecord, malformed, str, unverified } from './provider.js';
import { basicCredentials, sameSecret } from './secrets.js';

const ID = 'brevo';

const KINDS: Record<string, FeedbackEvent['kind']> = {
  delivered: 'delivered',
  hard_bounce: 'hard_bounce',
  invalid_email: 'hard_bounce',
  soft_bounce: 'soft_bounce',
  deferred: 'soft_bounce',
  blocked: 'hard_bounce',
  spam: 'complaint',
  complaint: 'complaint',
  unsubscribed: 'unsubscribe',
};

/**
 * Brevo's transactional webhooks, one event per request. Brevo does not sign them; its webhook
 * settings send basic-auth credentials or a bearer token, which the account configures here.
 */
export const brevoProvider: FeedbackProvider = {
  id: ID,
  label: 'Brevo (Sendinblue) transactional webhooks',
  maxBodyBytes: BODY_LIMITS.single,
  credentials: '`basicAuth` or `secret` (the bearer token set in the webhook)',
  checkCredentials: (c) =>
    (c.basicAuth?.user && c.basicAuth.password) || c.secret
      ? null
      : 'basic_auth or secret (the bearer token)',
  async verify(request, credentials) {
    const header = request.headers.authorization;
    if (credentials.basicAuth) {
      const given = basicCredentials(header);
      if (
        given &&
        sameSecret(given.user, credentials.basicAuth.user) &&
        sameSecret(given.password, credentials.basicAuth.password)
      ) {
        return;
      }
    }
    if (credentials.secret) {
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
      if (bearer && sameSecret(bearer, credentials.secret)) return;
    }
    if (!credentials.basicAuth && !credentials.secret)
      throw unverified(ID, 'no credentials are configured for this account');
    throw unverified(ID, 'the request carries no matching credentials');
  },
  parse(body) {
    if (!isRecord(body) || typeof body.event !== 'string') throw malformed(ID, 'no event');
    const kind = KINDS[body.event];
    if (!kind) return []; // request, opened, click, proxy_open, …
    const messageId = str(body['message-id']) ?? String(body.id);
    return [
      checkFeedbackEvent({
        provider: ID,
        eventId: `${messageId}:${body.event}:${String(body.email)}`,
        address: body.email,
        kind,
        at: body.ts_event ?? body.ts ?? body.date,
        bounceType: kind === 'hard_bounce' || kind === 'soft_bounce' ? body.event : null,
        diagnostic: str(body.reason),
      }),
    ];
  },
};
