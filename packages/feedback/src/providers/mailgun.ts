import { createHmac } from 'node:crypto';
import { checkFeedbackEvent, type FeedbackEvent } from '../event.js';
import {
  BODY_LIMITS,
  checkFresh,
  type FeedbackProvider,
  isRecord,
  malformed,
  str,
  unverified,
} from './provider.js';
import { sameSecret } from './secrets.js';

const ID = 'mailgun';

/**
 * Mailgun's webhooks: one event per request, `{ signature: { timestamp, token, signature },
 * "event-data": {…} }`, signed with HMAC-SHA256 of `timestamp + token` under the account's HTTP
 * webhook signing key. `failed` with severity `permanent` is a hard bounce whose delivery status
 * the reply reader reads; `temporary` a soft one.
 */
export const mailgunProvider: FeedbackProvider = {
  id: ID,
  label: 'Mailgun webhooks',
  maxBodyBytes: BODY_LIMITS.single,
  credentials: '`secret`: the HTTP webhook signing key',
  checkCredentials: (c) => (c.secret ? null : 'secret: the HTTP webhook signing key'),
  async verify(request, credentials, context) {
    if (!credentials.secret) throw unverified(ID, 'no webhook signing key is configured for this account');
    let body: unknown;
    try {
      body = JSON.parse(request.rawBody.toString('utf8'));
    } catch {
      throw malformed(ID, 'the body is not JSON');
    }
    const signature = isRecord(body) && isRecord(body.signature) ? body.signature : null;
    const timestamp = str(signature?.timestamp);
    const token = str(signature?.token);
    const given = str(signature?.signature);
    if (!timestamp || !token || !given) throw unverified(ID, 'the signature object is missing');
    checkFresh(ID, Number(timestamp), context.now);
    const expected = createHmac('sha256', credentials.secret)
      .update(timestamp + token)
      .digest('hex');
    if (!sameSecret(expected, given.toLowerCase())) throw unverified(ID, 'the signature does not verify');
  },
  parse(body) {
    if (!isRecord(body) || !isRecord(body['event-data'])) throw malformed(ID, 'no event-data object');
    const data = body['event-data'];
    const event = str(data.event);
    const status = isRecord(data['delivery-status']) ? data['delivery-status'] : {};
    let kind: FeedbackEvent['kind'] | null = null;
    if (event === 'delivered') kind = 'delivered';
    else if (event === 'failed') kind = data.severity === 'permanent' ? 'hard_bounce' : 'soft_bounce';
    else if (event === 'complained') kind = 'complaint';
    else if (event === 'unsubscribed') kind = 'unsubscribe';
    if (!kind) return []; // accepted, opened, clicked, stored, …
    const code = typeof status.code === 'number' ? status.code : null;
    const text = str(status.message) ?? str(status.description);
    const enhanced = str(status['enhanced-code']);
    const diagnostic =
      code !== null && code >= 200 && code < 600
        ? [String(code), enhanced, text].filter(Boolean).join(' ')
        : text;
    return [
      checkFeedbackEvent({
        provider: ID,
        eventId: str(data.id) ?? `${String(data.timestamp)}:${String(data.recipient)}:${event}`,
        address: data.recipient,
        kind,
        at: data.timestamp,
        bounceType:
          kind === 'hard_bounce' || kind === 'soft_bounce'
            ? [data.severity, data.reason].filter(Boolean).join('/')
            : null,
        diagnostic: kind === 'delivered' ? null : diagnostic,
      }),
    ];
  },
};
