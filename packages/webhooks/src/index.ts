export { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
export type { WebhookEvent, WebhookEventType } from './event.js';
export { WEBHOOK_SIGNATURE_HEADER } from './header.js';
export { type SignOptions, signPayload } from './sign.js';
export { type VerifyOptions, verifyPayload } from './verify.js';
export { verifyRequest, type WebhookRequestHeaders } from './verify-request.js';
