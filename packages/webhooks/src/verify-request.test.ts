import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookVerificationError } from './errors.js';
import { WEBHOOK_SIGNATURE_HEADER } from './header.js';
import { signPayload } from './sign.js';
import { refusal } from './testing/refusal.js';
import { verifyRequest } from './verify-request.js';

const SECRET = 'whsec_receiver';
const NOW = 1_763_900_000;
const body = JSON.stringify({
  id: 'evt_1',
  object: 'event',
  type: 'batch.completed',
  created: NOW,
  data: { object: { id: 'batch_1' } },
});

// A receiver as the README shows it: raw bytes, verifyRequest, 400 with the reason on refusal.
// It answers for both Node header views, since they differ for a repeated header.
let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const outcome = (headers: Parameters<typeof verifyRequest>[0]) => {
        try {
          return `ok ${verifyRequest(headers, raw, [SECRET]).id}`;
        } catch (error) {
          if (error instanceof WebhookVerificationError) return `${error.reason}: ${error.message}`;
          throw error;
        }
      };
      const headers = outcome(request.headers);
      const distinct = outcome(request.headersDistinct);
      response.writeHead(headers.startsWith('ok') ? 200 : 400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ headers, distinct }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = async (payload: string, headers: Record<string, string>) => {
  const response = await fetch(url, { method: 'POST', body: payload, headers });
  return { status: response.status, ...((await response.json()) as { headers: string; distinct: string }) };
};

/** Sends the header twice on the wire, which fetch cannot do. */
const postTwice = (payload: string, values: string[]) =>
  new Promise<{ headers: string; distinct: string }>((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { [WEBHOOK_SIGNATURE_HEADER]: values } });
    request.on('response', async (response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      resolve(JSON.parse(Buffer.concat(chunks).toString()));
    });
    request.on('error', reject);
    request.end(payload);
  });

describe('verifyRequest in a node:http receiver over a real socket', () => {
  it('accepts a signed delivery stamped with the current time', async () => {
    const reply = await post(body, { [WEBHOOK_SIGNATURE_HEADER]: signPayload(body, SECRET) });
    expect(reply).toEqual({ status: 200, headers: 'ok evt_1', distinct: 'ok evt_1' });
  });

  it('refuses a body altered in transit', async () => {
    const reply = await post(body.replace('batch_1', 'batch_2'), {
      'x-service-signature': signPayload(body, SECRET),
    });
    expect(reply.status).toBe(400);
    expect(reply.headers).toMatch(/^no_matching_signature: no v1 signature matches/);
  });

  it('refuses a request without the header', async () => {
    const reply = await post(body, {});
    expect(reply).toEqual({
      status: 400,
      headers: 'missing_header: the X-Service-Signature header is missing or empty',
      distinct: 'missing_header: the X-Service-Signature header is missing or empty',
    });
  });

  it('refuses the header sent twice, whichever view of the headers is used', async () => {
    const header = signPayload(body, SECRET);
    const reply = await postTwice(body, [header, header]);
    // request.headers joins the copies with ", "; headersDistinct keeps them apart.
    expect(reply.headers).toMatch(/^malformed_header: .*it contains whitespace/);
    expect(reply.distinct).toBe(
      'malformed_header: the X-Service-Signature header was sent 2 times; expected exactly once',
    );
  });
});

describe('verifyRequest header lookup', () => {
  const header = signPayload(body, SECRET, { timestamp: NOW });
  const verify = (headers: Parameters<typeof verifyRequest>[0]) =>
    refusal(() => verifyRequest(headers, body, SECRET, { now: NOW }));

  it('finds the header in any letter case in a plain object or a Fetch Headers', () => {
    expect(verify({ 'X-SERVICE-SIGNATURE': header })).toBe('accepted');
    expect(verify({ 'content-type': 'application/json', 'x-service-signature': header })).toBe('accepted');
    expect(verify({ 'x-service-signature': [header] })).toBe('accepted');
    expect(verify(new Headers({ 'X-Service-Signature': header }))).toBe('accepted');
    expect(
      verify(new Request('http://127.0.0.1/', { headers: { 'x-SERVICE-signature': header } }).headers),
    ).toBe('accepted');
  });

  it('refuses absent, empty or repeated headers', () => {
    const missing = {
      reason: 'missing_header',
      message: 'the X-Service-Signature header is missing or empty',
    };
    expect(verify({ 'x-other': header })).toEqual(missing);
    expect(verify({ 'x-service-signature': undefined })).toEqual(missing);
    expect(verify({ 'x-service-signature': [] })).toEqual(missing);
    expect(verify(new Headers())).toEqual(missing);
    expect(verify({ 'X-Service-Signature': header, 'x-service-signature': header })).toEqual({
      reason: 'malformed_header',
      message: 'the X-Service-Signature header was sent 2 times; expected exactly once',
    });
  });

  it('does not mistake a header named "get" for a Fetch Headers', () => {
    expect(verify({ get: 'x', 'x-service-signature': header })).toBe('accepted');
  });
});
