import { createVerify } from 'node:crypto';
import { ServiceError } from '@svc/core';
import { checkFeedbackEvent, type FeedbackEvent } from '../event.js';
import {
  BODY_LIMITS,
  type FeedbackProvider,
  isRecord,
  MAX_EVENTS_PER_BODY,
  malformed,
  str,
  unverified,
} from './provider.js';

const ID = 'ses';

/** SNS signing certificates are served only from Amazon's SNS hosts, over HTTPS. */
const CERT_URL = /^https:\/\/sns\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?\/[^?#]*\.pem$/;

/** The SNS fields signed, per message type, in the documented order. */
const SIGNED_FIELDS: Record<string, readonly string[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: [
    'Message',
    'MessageId',
    'SubscribeURL',
    'Timestamp',
    'Token',
    'TopicArn',
    'Type',
  ],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** The string SNS signs: each present field's name and value, each on its own line. */
export function snsStringToSign(message: Record<string, unknown>): string {
  const fields = SIGNED_FIELDS[String(message.Type)] ?? [];
  let text = '';
  for (const field of fields) {
    const value = message[field];
    if (field === 'Subject' && (value === undefined || value === null)) continue;
    text += `${field}\n${String(value ?? '')}\n`;
  }
  return text;
}

function parseSnsBody(raw: Buffer): Record<string, unknown> {
  let message: unknown;
  try {
    message = JSON.parse(raw.toString('utf8'));
  } catch {
    throw malformed(ID, 'the body is not JSON');
  }
  if (!isRecord(message) || typeof message.Type !== 'string')
    throw malformed(ID, 'not an SNS message (no Type)');
  return message;
}

/**
 * Amazon SES event and notification messages delivered by an SNS HTTPS subscription. SNS signs
 * every message with a certificate served from an `sns.<region>.amazonaws.com` URL (signature
 * version 1: SHA1withRSA; 2: SHA256withRSA); the account names the topics it accepts. A
 * subscription confirmation is verified too: the server then visits its `SubscribeURL`.
 */
export const sesProvider: FeedbackProvider = {
  id: ID,
  label: 'Amazon SES (through SNS)',
  maxBodyBytes: BODY_LIMITS.single,
  credentials: '`topicArns`: the SNS topic ARNs this account receives SES events from',
  checkCredentials: (c) =>
    c.topicArns &&
    c.topicArns.length > 0 &&
    c.topicArns.every((arn) => /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]{1,256}$/.test(arn))
      ? null
      : 'topic_arns: one or more SNS topic ARNs (arn:aws:sns:<region>:<account>:<topic>)',
  async verify(request, credentials, context) {
    const message = parseSnsBody(request.rawBody);
    const topics = credentials.topicArns ?? [];
    if (topics.length === 0) throw unverified(ID, 'no SNS topic ARN is configured for this account');
    if (!topics.includes(String(message.TopicArn)))
      throw unverified(ID, 'the message is from a topic this account did not configure');
    const certUrl = str(message.SigningCertURL);
    if (!certUrl || !CERT_URL.test(certUrl))
      throw unverified(ID, 'SigningCertURL is not an Amazon SNS certificate URL');
    const algorithm =
      message.SignatureVersion === '2' ? 'RSA-SHA256' : message.SignatureVersion === '1' ? 'RSA-SHA1' : null;
    if (!algorithm)
      throw unverified(ID, `unknown SignatureVersion ${JSON.stringify(message.SignatureVersion)}`);
    const signature = str(message.Signature);
    if (!signature) throw unverified(ID, 'the message has no Signature');
    if (!context.fetchCertificate) throw unverified(ID, 'no way to fetch the SNS signing certificate');
    let certificate: string;
    try {
      certificate = await context.fetchCertificate(certUrl);
    } catch (error) {
      // Amazon did not answer: not the sender's fault, and SNS retries a delivery that fails.
      throw new ServiceError(
        'upstream_timeout',
        `ses feedback: the SNS signing certificate could not be fetched (${(error as Error).message})`,
        { cause: error },
      );
    }
    const verifier = createVerify(algorithm);
    verifier.update(snsStringToSign(message), 'utf8');
    let valid = false;
    try {
      valid = verifier.verify(certificate, signature, 'base64');
    } catch {
      valid = false;
    }
    if (!valid) throw unverified(ID, 'the SNS signature does not verify');
  },
  parse(_body, request) {
    const message = parseSnsBody(request.rawBody);
    if (message.Type !== 'Notification') return [];
    let notification: unknown;
    try {
      notification = JSON.parse(String(message.Message));
    } catch {
      throw malformed(ID, 'the SNS Message is not an SES notification (not JSON)');
    }
    return sesEvents(notification);
  },
};

/** The events of one SES notification (the `notificationType` or event-publishing `eventType` form). */
export function sesEvents(notification: unknown): FeedbackEvent[] {
  if (!isRecord(notification)) throw malformed(ID, 'the SES notification is not an object');
  const type = str(notification.notificationType) ?? str(notification.eventType);
  const mail = isRecord(notification.mail) ? notification.mail : {};
  const messageId = str(mail.messageId) ?? 'unknown-message';
  const events: FeedbackEvent[] = [];
  const add = (event: Parameters<typeof checkFeedbackEvent>[0]) => {
    if (events.length >= MAX_EVENTS_PER_BODY)
      throw malformed(ID, `more than ${MAX_EVENTS_PER_BODY} recipients`);
    events.push(checkFeedbackEvent(event));
  };
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  if (type === 'Bounce' && isRecord(notification.bounce)) {
    const bounce = notification.bounce;
    const bounceType = str(bounce.bounceType);
    const subType = str(bounce.bounceSubType);
    // Permanent: a hard bounce; Transient and Undetermined say nothing lasting about the mailbox.
    const kind = bounceType === 'Permanent' ? 'hard_bounce' : 'soft_bounce';
    for (const recipient of list(bounce.bouncedRecipients)) {
      if (!isRecord(recipient)) continue;
      add({
        provider: ID,
        eventId: `${str(bounce.feedbackId) ?? messageId}:${String(recipient.emailAddress)}`,
        address: recipient.emailAddress,
        kind,
        at: bounce.timestamp,
        bounceType: [bounceType, subType].filter(Boolean).join('/') || null,
        diagnostic: str(recipient.diagnosticCode),
      });
    }
  } else if (type === 'Complaint' && isRecord(notification.complaint)) {
    const complaint = notification.complaint;
    for (const recipient of list(complaint.complainedRecipients)) {
      if (!isRecord(recipient)) continue;
      add({
        provider: ID,
        eventId: `${str(complaint.feedbackId) ?? messageId}:${String(recipient.emailAddress)}`,
        address: recipient.emailAddress,
        kind: 'complaint',
        at: complaint.timestamp,
      });
    }
  } else if (type === 'Delivery' && isRecord(notification.delivery)) {
    const delivery = notification.delivery;
    for (const recipient of list(delivery.recipients)) {
      add({
        provider: ID,
        eventId: `${messageId}:delivery:${String(recipient)}`,
        address: recipient,
        kind: 'delivered',
        at: delivery.timestamp,
        diagnostic: str(delivery.smtpResponse),
      });
    }
  }
  // Send, Reject, Open, Click, Rendering Failure, DeliveryDelay…: nothing about a mailbox's existence.
  return events;
}

/** Whether an SNS body asks for its subscription to be confirmed, and where. */
export function snsSubscribeUrl(rawBody: Buffer): string | null {
  const message = parseSnsBody(rawBody);
  if (message.Type !== 'SubscriptionConfirmation') return null;
  const url = str(message.SubscribeURL);
  return url && /^https:\/\/sns\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?\//.test(url) ? url : null;
}
