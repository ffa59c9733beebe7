import { createHmac } from 'node:crypto';
import { checkFeedbackEvent, type FeedbackEvent } from '../event.js';
import {
  BODY_LIMITS,
  checkFresh,
  type FeedbackProvider,
  isRecord,
  MAX_EVENTS_PER_BODY,
  malformed,
  str,
  unverified,
} from './provider.js';
import { sameSecret } from './secrets.js';

const ID = 'resend';

/**
 * Resend's webhooks, delivered by Svix: HMAC-SHA256 of `svix-id.svix-timestamp.body` under the
 * base64 key after `whsec_`, sent as one or more `v1,<base64>` in `svix-signature`.
 */
export const resendProvider: FeedbackProvider = {
  id: ID,
  label: 'Resend webhooks (Svix signatures)',
  maxBodyBytes: BODY_LIMITS.single,
  credentials: '`secret`: the webhook signing secret (`whsec_…`)',
  checkCredentials: (c) =>
    c.secret && /^whsec_[A-Za-z0-9+/=]{16,}$/.test(c.secret)
      ? null
      : 'secret: the signing secret, whsec_ followed by base64',
  async verify(request, credentials, context) {
    const secret = credentials.secret;
    if (!secret) throw unverified(ID, 'no signing secret is configured for this account');
    const id = request.headers['svix-id'];
    const timestamp = request.headers['svix-timestamp'];
    const signatures = request.headers['svix-signature'];
    if (!id || !timestamp || !signatures)
      throw unverified(ID, 'the svix-id, svix-timestamp or svix-signature header is missing');
    checkFresh(ID, Number(timestamp), context.now);
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key)
      .update(`${id}.${timestamp}.`)
      .update(request.rawBody)
      .digest('base64');
    const matches = signatures
      .split(' ')
      .map((entry) => entry.split(','))
      .some(([version, value]) => version === 'v1' && value !== undefined && sameSecret(value, expected));
    if (!matches) throw unverified(ID, 'no signature verifies');
  },
  parse(body, request) {
    if (!isRecord(body) || typeof body.type !== 'string' || !isRecord(body.data))
      throw malformed(ID, 'no type and data');
    const data = body.data;
    const bounce = isRecord(data.bounce) ? data.bounce : {};
    const kinds: Record<string, FeedbackEvent['kind']> = {
      'email.delivered': 'delivered',
      'email.bounced': bounce.type === 'Permanent' ? 'hard_bounce' : 'soft_bounce',
      'email.delivery_delayed': 'soft_bounce',
      'email.complained': 'complaint',
    };
    const kind = kinds[body.type];
    if (!kind) return [];
    const recipients = Array.isArray(data.to) ? data.to : [data.to];
    if (recipients.length > MAX_EVENTS_PER_BODY)
      throw malformed(ID, `more than ${MAX_EVENTS_PER_BODY} recipients`);
    const base = request.headers['svix-id'] ?? `${String(data.email_id)}:${body.type}`;
    return recipients.map((to) =>
      checkFeedbackEvent({
        provider: ID,
        eventId: `${base}:${String(to)}`,
        address: to,
        kind,
        at: body.created_at ?? data.created_at,
        bounceType:
          body.type === 'email.bounced'
            ? [str(bounce.type), str(bounce.subType)].filter(Boolean).join('/')
            : null,
        diagnostic: body.type === 'email.bounced' ? str(bounce.message) : null,
      }),
    );
  },
};
