export { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
export { type SignOptions, signPayload, WEBHOOK_SIGNATURE_HEADER } from './sign.js';
export { type VerifyOptions, verifyPayload, verifyRequest, type WebhookEvent } from './verify.js';
