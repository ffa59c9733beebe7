import { brevoProvider } from './brevo.js';
import { genericProvider } from './generic.js';
import { mailgunProvider } from './mailgun.js';
import { postmarkProvider } from './postmark.js';
import type { FeedbackProvider } from './provider.js';
import { resendProvider } from './resend.js';
import { sendgridProvider } from './sendgrid.js';
import { sesProvider } from './ses.js';

/**
 * Every email provider whose delivery events are understood, by id (the `{provider}` of
 * `POST /v2/feedback/{provider}`). The one list: the server's route, the CLI and the docs read it.
 */
export const FEEDBACK_PROVIDERS: Readonly<Record<string, FeedbackProvider>> = Object.freeze({
  ses: sesProvider,
  sendgrid: sendgridProvider,
  mailgun: mailgunProvider,
  postmark: postmarkProvider,
  resend: resendProvider,
  brevo: brevoProvider,
  generic: genericProvider,
});

export const FEEDBACK_PROVIDER_IDS = Object.keys(FEEDBACK_PROVIDERS);

/** The provider of an id, or undefined. */
export function feedbackProvider(id: string): FeedbackProvider | undefined {
  return Object.hasOwn(FEEDBACK_PROVIDERS, id) ? FEEDBACK_PROVIDERS[id] : undefined;
}
