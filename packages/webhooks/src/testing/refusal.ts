import { WebhookVerificationError } from '../errors.js';

/** The reason and message a call was refused with, or `accepted` when it returned. */
export function refusal(run: () => unknown): { reason: string; message: string } | 'accepted' {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { reason: error.reason, message: error.message };
    throw error;
  }
  return 'accepted';
}
