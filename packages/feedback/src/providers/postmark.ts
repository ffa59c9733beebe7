import { checkFeedbackEvent, type FeedbackEvent } from '../event.js';
import { BODY_LIMITS, type FeedbackProvider, isRecord, malformed, str, unverified } from './provider.js';
import { basicCredentials, sameSecret } from './secrets.js';

const ID = 'postmark';

// Postmark's bounce types: only HardBounce is permanent; the rest are temporary or not about the mailbox.
const SOFT_TYPES = new Set([
  'SoftBounce',
  'Transient',
  'DnsError',
  'AutoResponder',
  'MailFrontier',
  'Blocked',
  'SMTPApiError',
]);

/**
 * A record's numeric ID as written: Postmark's bounce IDs go beyond 2^53, where `JSON.parse` rounds
 * them (two bounces could share an id and one be dropped as a duplicate).
 */
function exactId(parsed: unknown, rawBody: Buffer): string {
  if (typeof parsed === 'number' && !Number.isSafeInteger(parsed)) {
    const written = /"ID"\s*:\s*(\d+)/.exec(rawBody.toString('utf8'))?.[1];
    if (written) return written;
  }
  return String(parsed);
}

/**
 * Postmark's webhooks (Delivery, Bounce, SpamComplaint, SubscriptionChange), one record per
 * request. Postmark does not sign them; it sends the basic-auth user and password written into the
 * webhook URL, which the account configures here.
 */
export const postmarkProvider: FeedbackProvider = {
  id: ID,
  label: 'Postmark webhooks',
  maxBodyBytes: BODY_LIMITS.dump,
  credentials: '`basicAuth`: the user and password written into the webhook URL',
  checkCredentials: (c) =>
    c.basicAuth?.user && c.basicAuth.password
      ? null
      : 'basic_auth: the user and password written into the webhook URL',
  async verify(request, credentials) {
    if (!credentials.basicAuth)
      throw unverified(ID, 'no basic-auth credentials are configured for this account');
    const given = basicCredentials(request.headers.authorization);
    if (!given) throw unverified(ID, 'the request carries no basic-auth credentials');
    const userOk = sameSecret(given.user, credentials.basicAuth.user);
    const passwordOk = sameSecret(given.password, credentials.basicAuth.password);
    if (!userOk || !passwordOk) throw unverified(ID, 'the basic-auth credentials are wrong');
  },
  parse(body, request) {
    if (!isRecord(body) || typeof body.RecordType !== 'string') throw malformed(ID, 'no RecordType');
    const recordId = exactId(body.ID, request.rawBody);
    const record = (event: Parameters<typeof checkFeedbackEvent>[0]): FeedbackEvent[] => [
      checkFeedbackEvent(event),
    ];
    switch (body.RecordType) {
      case 'Delivery':
        return record({
          provider: ID,
          eventId: `${String(body.MessageID)}:delivery:${String(body.Recipient)}`,
          address: body.Recipient,
          kind: 'delivered',
          at: body.DeliveredAt,
          diagnostic: str(body.Details),
        });
      case 'Bounce': {
        const type = str(body.Type);
        if (type === 'SpamComplaint') break;
        const kind =
          type === 'HardBounce' ? 'hard_bounce' : SOFT_TYPES.has(type ?? '') ? 'soft_bounce' : null;
        if (!kind) return []; // Unsubscribe requests, challenge-response, manual deactivation…
        return record({
          provider: ID,
          eventId: recordId,
          address: body.Email,
          kind,
          at: body.BouncedAt,
          bounceType: type,
          diagnostic: str(body.Details) ?? str(body.Description),
        });
      }
      case 'SpamComplaint':
        break;
      case 'SubscriptionChange':
        if (body.SuppressSending !== true || body.SuppressionReason !== 'ManualSuppression') return [];
        return record({
          provider: ID,
          eventId: `${String(body.MessageID)}:unsubscribe:${String(body.Recipient)}:${String(body.ChangedAt)}`,
          address: body.Recipient,
          kind: 'unsubscribe',
          at: body.ChangedAt,
        });
      default:
        return []; // Open, Click
    }
    return record({
      provider: ID,
      eventId: recordId,
      address: body.Email,
      kind: 'complaint',
      at: body.BouncedAt,
    });
  },
};
