export { type StaticRoute, type StaticSite, type StaticSiteOptions, startStaticSite } from './static-site.js';
export type {
  FakeHttpHeaders,
  FakeHttpResponse,
  RecordedHttpRequest,
  RecordedHttpResponse,
} from './types.js';
export type { WebhookBehaviour, WebhookRequest, WebhookResponder } from './webhook-behaviour.js';
export {
  startWebhookReceiver,
  type WebhookDelivery,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from './webhook-receiver.js';
