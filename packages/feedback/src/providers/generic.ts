import { checkFeedbackEvent, FEEDBACK_KINDS, type FeedbackEvent } from '../event.js';
import {
  BODY_LIMITS,
  type FeedbackProvider,
  isRecord,
  MAX_EVENTS_PER_BODY,
  malformed,
  unverified,
} from './provider.js';
import { sameSecret } from './secrets.js';

const ID = 'generic';

/**
 * Our own JSON form, for any sender the registry does not know:
 * `{ "events": [{ "id", "address", "event", "at", "bounce_type"?, "diagnostic"?, "provider"? }] }`
 * with `event` one of `FEEDBACK_KINDS`, authenticated by `Authorization: Bearer <secret>`.
 */
export const genericProvider: FeedbackProvider = {
  id: ID,
  label: 'Generic JSON',
  maxBodyBytes: BODY_LIMITS.batch,
  credentials: '`secret`: the bearer token the sender puts in `Authorization`',
  checkCredentials: (c) =>
    c.secret && c.secret.length >= 16 ? null : 'secret: a bearer token of at least 16 characters',
  async verify(request, credentials) {
    if (!credentials.secret) throw unverified(ID, 'no secret is configured for this account');
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer || !sameSecret(bearer, credentials.secret))
      throw unverified(ID, 'the bearer token is missing or wrong');
  },
  parse(body) {
    if (!isRecord(body) || !Array.isArray(body.events))
      throw malformed(ID, 'the body needs an "events" array');
    if (body.events.length > MAX_EVENTS_PER_BODY)
      throw malformed(ID, `more than ${MAX_EVENTS_PER_BODY} events`);
    return body.events.map((item, index): FeedbackEvent => {
      if (!isRecord(item)) throw malformed(ID, `events[${index}] is not an object`);
      if (!(FEEDBACK_KINDS as readonly unknown[]).includes(item.event)) {
        throw malformed(ID, `events[${index}].event must be one of ${FEEDBACK_KINDS.join(', ')}`);
      }
      return checkFeedbackEvent({
        provider: typeof item.provider === 'string' && item.provider !== '' ? item.provider : ID,
        eventId: item.id,
        address: item.address,
        kind: item.event,
        at: item.at,
        bounceType: item.bounce_type,
        diagnostic: item.diagnostic,
      });
    });
  },
};
