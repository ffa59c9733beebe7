import type { operations } from '../../../test/generated/openapi';

// The API's shapes, taken from the OpenAPI document the server serves (test/generated/openapi.ts
// is generated from it and checked by the e2e suite), so the page cannot drift from the API.
type Json<O extends keyof operations, S extends number> =
  operations[O]['responses'] extends Record<S, { content: { 'application/json': infer T } }> ? T : never;

export type Health = Json<'getHealth', 200>;
export type Account = Json<'getAccount', 200>;
export type Usage = Json<'getUsage', 200>;
export type Key = Json<'listKeys', 200>['data'][number];
export type CreatedKey = Json<'createKey', 201>;
export type RotatedKey = Json<'rotateKey', 201>;
export type RotatedSecret = Json<'rotateWebhookSecret', 201>;
export type Token = Json<'createToken', 201>;
export type Job = Json<'getBatchJob', 200>;
export type JobPage = Json<'listBatchJobs', 200>;
export type JobEvent = Json<'listBatchJobEvents', 200>['data'][number];
export type TestEventResult = Json<'sendTestWebhook', 200>;
