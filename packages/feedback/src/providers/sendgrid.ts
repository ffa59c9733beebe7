import { createPublicKey, createVerify } from 'node:crypto';
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

const ID = 'sendgrid';

/** A PEM or the bare base64 DER (SPKI) SendGrid shows in its settings. */
function verificationKey(text: string) {
  const pem = text.includes('BEGIN')
    ? text
    : `-----BEGIN PUBLIC KEY-----\n${text.trim()}\n-----END PUBLIC KEY-----\n`;
  return createPublicKey(pem);
}

const KINDS: Record<string, FeedbackEvent['kind']> = {
  delivered: 'delivered',
  bounce: 'hard_bounce',
  deferred: 'soft_bounce',
  spamreport: 'complaint',
  unsubscribe: 'unsubscribe',
  group_unsubscribe: 'unsubscribe',
};

/**
 * SendGrid's Event Webhook: a JSON array of events, signed (when signature verification is on) with
 * ECDSA P-256 over the `X-Twilio-Email-Event-Webhook-Timestamp` header followed by the raw body.
 * A `bounce` event (type `bounce` or `blocked`) is a hard bounce whose `reason` the reply reader
 * reads: a block is a policy refusal and does not count against the address.
 */
export const sendgridProvider: FeedbackProvider = {
  id: ID,
  label: 'SendGrid (Twilio) Event Webhook',
  maxBodyBytes: BODY_LIMITS.batch,
  credentials: "`publicKey`: the Event Webhook's verification key (signed webhooks on)",
  checkCredentials: (c) => {
    if (!c.publicKey) return 'public_key: the Event Webhook verification key';
    try {
      const key = verificationKey(c.publicKey);
      return key.asymmetricKeyType === 'ec' ? null : 'public_key: not an ECDSA key';
    } catch {
      return 'public_key: not a public key (base64 DER or PEM)';
    }
  },
  async verify(request, credentials, context) {
    if (!credentials.publicKey) throw unverified(ID, 'no verification key is configured for this account');
    const signature = request.headers['x-twilio-email-event-webhook-signature'];
    const timestamp = request.headers['x-twilio-email-event-webhook-timestamp'];
    if (!signature || !timestamp) throw unverified(ID, 'the signature headers are missing');
    checkFresh(ID, Number(timestamp), context.now);
    const verifier = createVerify('sha256');
    verifier.update(timestamp);
    verifier.update(request.rawBody);
    let valid = false;
    try {
      valid = verifier.verify(verificationKey(credentials.publicKey), signature, 'base64');
    } catch {
      valid = false;
    }
    if (!valid) throw unverified(ID, 'the signature does not verify');
  },
  parse(body) {
    if (!Array.isArray(body)) throw malformed(ID, 'the body is not an array of events');
    if (body.length > MAX_EVENTS_PER_BODY) throw malformed(ID, `more than ${MAX_EVENTS_PER_BODY} events`);
    const events: FeedbackEvent[] = [];
    for (const item of body) {
      if (!isRecord(item)) throw malformed(ID, 'an event is not an object');
      const kind = KINDS[String(item.event)];
      if (!kind) continue; // processed, dropped, open, click, …
      const status = str(item.status);
      const reason = str(item.reason) ?? str(item.response);
      events.push(
        checkFeedbackEvent({
          provider: ID,
          eventId:
            str(item.sg_event_id) ??
            `${String(item.sg_message_id)}:${String(item.event)}:${String(item.email)}`,
          address: item.email,
          kind,
          at: item.timestamp,
          bounceType: kind === 'hard_bounce' ? (str(item.type) ?? 'bounce') : null,
          // The reason usually starts with the reply code; when it does not, lead with the status.
          diagnostic: reason && status && !/^\s*\d{3}/.test(reason) ? `${status} ${reason}` : reason,
        }),
      );
    }
    return events;
  },
};
