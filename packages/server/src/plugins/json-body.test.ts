import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../testing/test-server.js';
import {
  jsonBodyLimits,
  LIST_ENTRY_BYTES,
  readJsonBody,
  SMALL_JSON_BODY_BYTES,
  YIELDING_BODY_BYTES,
} from './json-body.js';
import { JsonValueCounter } from './json-value-counter.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

async function start(limits: Record<string, number> = {}) {
  server = await createTestServer({ options: { limits } });
  const keys = await server.account('free');
  const post = (url: string, payload: string, contentType = 'application/json') =>
    (server as TestServer).app.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': keys.testKey.secret, 'content-type': contentType },
      payload,
    });
  return { keys, post };
}

function specError(response: { statusCode: number; body: string }, status: number, code: string): string {
  expect(response.statusCode).toBe(status);
  const body = JSON.parse(response.body) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  return body.error.message;
}

/** Whether `text`, fed to a JsonValueCounter in chunks of `size` bytes, holds more than `max` values. */
function over(text: string, max: number, size = Number.POSITIVE_INFINITY): boolean {
  const counter = new JsonValueCounter(max);
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size)
    if (counter.write(bytes.subarray(at, at + size))) return true;
  return false;
}

describe('JsonValueCounter', () => {
  it('counts objects, arrays, members and items, not what is inside strings', () => {
    // 1, plus {, [ and two commas: 5.
    expect(over('{"a":[1,2,3]}', 4)).toBe(true);
    expect(over('{"a":[1,2,3]}', 5)).toBe(false);
    expect(over('{"a":[1,2,3],"b":{}}', 5)).toBe(true);
    expect(over('{"a":"[,,,{{{,,,]"}', 2)).toBe(false);
    expect(over('{"a":"x\\",,,,\\\\","b":1}', 3)).toBe(false);
    expect(over('{"a":"x\\\\",[[[[[[', 3)).toBe(true);
    expect(over('{"é,":"ü[,{"}', 2)).toBe(false);
    expect(over(`[${Array(300_000).fill('{}').join(',')}]`, 10_256)).toBe(true);
  });

  it('counts the same however the bytes are split: strings and escapes across chunks', () => {
    const texts = [
      '{"a":"x\\",,,,\\\\","b":[1,2]}',
      '{"a":"\\\\\\\\","b":[1,2,{}]}',
      '["é,ü","\\"",[,],{"k":"\\\\"}]',
    ];
    for (const text of texts) {
      const values = 1 + [...text.replace(/"(?:[^"\\]|\\.)*"/g, '')].filter((c) => ',{['.includes(c)).length;
      for (const size of [1, 2, 3, 5, 7]) {
        expect(over(text, values, size), `${text} in chunks of ${size}`).toBe(false);
        expect(over(text, values - 1, size), `${text} in chunks of ${size}`).toBe(true);
      }
    }
  });
});

describe('jsonBodyLimits (from ENDPOINTS)', () => {
  it('small for one address, room for 10,000 of the longest addresses in bulk and 50,000 records in a batch', () => {
    const ceiling = 16_777_216;
    expect(jsonBodyLimits('verify_email', ceiling)).toEqual({ bytes: SMALL_JSON_BODY_BYTES, values: 256 });
    expect(jsonBodyLimits('verify_email_bulk', ceiling)).toEqual({
      bytes: SMALL_JSON_BODY_BYTES + 10_000 * LIST_ENTRY_BYTES,
      values: 10_256,
    });
    expect(jsonBodyLimits('batch_create', ceiling).values).toBe(50_256);
    expect(jsonBodyLimits('batch_create', 65_536).bytes).toBe(65_536);
    // The longest address, quoted, with its comma.
    expect(LIST_ENTRY_BYTES).toBe(JSON.stringify(`${'a'.repeat(64)}@${'b'.repeat(189)}`).length + 1);
  });
});

describe('JSON bodies bounded by their endpoint', () => {
  it('one verification: an object of 60,000 unknown keys is refused by size (16 KiB), not validated', async () => {
    const { post } = await start();
    const body = JSON.stringify(Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 1])));
    expect(specError(await post('/v2/verify/email', body), 400, 'invalid_request')).toBe(
      `the body is larger than this endpoint's limit of ${SMALL_JSON_BODY_BYTES} bytes`,
    );
  });

  it('one verification: 300 members in a small body are refused before parsing', async () => {
    const { post } = await start();
    const body = JSON.stringify({
      email: 'a@b.example',
      options: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`o${i}`, 1])),
    });
    expect(specError(await post('/v2/verify/email', body), 400, 'invalid_request')).toBe(
      "the JSON body holds more than this endpoint's limit of 256 values (objects, arrays, their members and items)",
    );
  });

  it('bulk: 500,000 numbers or 300,000 objects under 1 MiB are refused before parsing', async () => {
    const { post } = await start();
    for (const item of ['0', '{}']) {
      const count = item === '0' ? 500_000 : 300_000;
      const body = `{"emails":[${Array(count).fill(item).join(',')}]}`;
      expect(body.length).toBeLessThan(1_048_576);
      expect(specError(await post('/v2/verify/email/bulk', body), 400, 'invalid_request')).toMatch(
        /holds more than this endpoint's limit of 10256 values/,
      );
    }
  });

  it('bulk: 10,000 of the longest addresses fit (2.6 MB, over the old 1 MiB limit)', async () => {
    const { post } = await start();
    const emails = Array.from(
      { length: 10_000 },
      (_, i) => `${'a'.repeat(64)}@${String(i).padStart(185, 'b')}.io`,
    );
    const response = await post('/v2/verify/email/bulk', JSON.stringify({ emails }));
    expect(response.statusCode).toBe(200);
    expect(response.json().summary.total).toBe(10_000);
  });

  it('batch: an uploaded list keeps the upload limit although the JSON limit is larger', async () => {
    const { post } = await start({ uploadBodyBytes: 1_000 });
    const list = Array.from({ length: 200 }, (_, i) => `10.0.0.${i % 250}`).join('\n');
    expect(specError(await post('/v2/batch?type=geo_ip', list, 'text/plain'), 400, 'invalid_request')).toBe(
      'the uploaded list is larger than the upload limit of 1000 bytes',
    );
  });

  it('a ceiling (limits.jsonBodyBytes) below a list endpoint’s own limit applies', async () => {
    const { post } = await start({ jsonBodyBytes: 2_000 });
    const emails = Array.from({ length: 200 }, (_, i) => `user${i}@example.com`);
    expect(
      specError(await post('/v2/verify/email/bulk', JSON.stringify({ emails })), 400, 'invalid_request'),
    ).toBe("the body is larger than this endpoint's limit of 2000 bytes");
  });
});

/**
 * A server on 127.0.0.1 with a Free account; `readWhenAnswered` holds, per request id, the bytes
 * the server had read from the request's connection when it sent the answer.
 */
async function listen(limits: Record<string, number> = {}) {
  server = await createTestServer({ options: { limits } });
  const readWhenAnswered = new Map<string, number>();
  server.app.addHook('onSend', (request, _reply, payload, done) => {
    readWhenAnswered.set(request.id, request.raw.socket.bytesRead);
    done(null, payload);
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.app.server.address() as { port: number };
  const keys = await server.account('free');
  return { port, url: `http://127.0.0.1:${port}`, key: keys.testKey.secret, readWhenAnswered };
}

interface SpecError {
  status: number;
  code: string;
  message: string;
  requestId: string;
}

/** The spec's error body of a response, checked to be one. */
function httpSpecError(status: number, text: string, requestIdHeader: string | null): SpecError {
  const { error } = JSON.parse(text) as { error: { code: string; message: string; request_id: string } };
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'request_id']);
  expect(requestIdHeader).toBe(error.request_id);
  return { status, code: error.code, message: error.message, requestId: error.request_id };
}

async function postJson(url: string, key: string, body: string): Promise<SpecError> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body,
  });
  return httpSpecError(response.status, await response.text(), response.headers.get('x-request-id'));
}

/** The audit's bodies (issue 24 item 2), each under 1 MiB. */
const BULK_NUMBERS = `{"emails":[${Array(500_000).fill('1').join(',')}]}`;
const BATCH_OBJECTS = `{"type":"verify_email","records":[${Array(300_000).fill('{}').join(',')}]}`;
const UNKNOWN_KEYS = JSON.stringify({
  email: 'a@example.com',
  ...Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 0])),
});
const TOO_MANY_VALUES = (limit: number) =>
  `the JSON body holds more than this endpoint's limit of ${limit} values (objects, arrays, their members and items)`;

describe('hostile JSON bodies over HTTP (issue 24 item 2)', () => {
  it('each is answered 400 invalid_request naming the limit before the server read a quarter of it, and nothing is stored', async () => {
    const { url, key, readWhenAnswered } = await listen();
    const cases = [
      { path: '/v2/verify/email/bulk', body: BULK_NUMBERS, message: TOO_MANY_VALUES(10_256) },
      { path: '/v2/batch', body: BATCH_OBJECTS, message: TOO_MANY_VALUES(50_256) },
      {
        path: '/v2/verify/email',
        body: UNKNOWN_KEYS,
        message: "the body is larger than this endpoint's limit of 16384 bytes",
      },
    ];
    for (const { path, body, message } of cases) {
      expect(body.length).toBeGreaterThan(600_000);
      expect(body.length).toBeLessThan(1_048_576);
      const error = await postJson(`${url}${path}`, key, body);
      expect({ path, status: error.status, code: error.code, message: error.message }).toEqual({
        path,
        status: 400,
        code: 'invalid_request',
        message,
      });
      // Before: the whole body was read into one string and counted before the 400 (1 MB read).
      expect(readWhenAnswered.get(error.requestId)).toBeLessThan(body.length / 4);
    }
    const jobs = await fetch(`${url}/v2/batch`, { headers: { 'x-api-key': key } });
    expect(jobs.status).toBe(200);
    expect(((await jobs.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('a body declared as 1 MB of which 100 KB were sent is refused at its values, without waiting for the rest', async () => {
    // Before, the server waited for the whole body and answered "not received in time" when the deadline passed.
    const { port, key } = await listen({ requestTimeoutMs: 5000 });
    const sent = BULK_NUMBERS.slice(0, 100_000);
    const text = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /v2/verify/email/bulk HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n${sent}`,
        );
      });
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
        // The whole answer is in: this client stops here, with 900 KB of its body never sent.
        const split = received.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? Number.NaN);
        if (split !== -1 && received.length >= split + 4 + length) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('close', () => resolve(received));
    });
    const split = text.indexOf('\r\n\r\n');
    expect(text.slice(0, 12)).toBe('HTTP/1.1 400');
    const requestId = /x-request-id: (\S+)/i.exec(text.slice(0, split))?.[1] ?? null;
    const error = httpSpecError(400, text.slice(split + 4), requestId);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe(TOO_MANY_VALUES(10_256));
  });

  it('a body within the limits is still parsed and served: 2,000 addresses in bulk', async () => {
    const { url, key } = await listen();
    const emails = Array.from({ length: 2000 }, (_, i) => `user${i}@example.com`);
    const response = await fetch(`${url}/v2/verify/email/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ emails }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { summary: { total: number } }).summary.total).toBe(2000);
  });
});

describe('a long body is read over several turns of the event loop (YIELDING_BODY_BYTES)', () => {
  /** Feeds `text` to readJsonBody in chunks of 16 KiB written at once; says what it parsed, how often the payload was paused, and whether a turn scheduled at the end ran before the answer. */
  async function read(text: string) {
    const payload = new PassThrough();
    let pauses = 0;
    payload.on('pause', () => pauses++);
    const order: string[] = [];
    const request = {
      headers: { 'content-length': String(Buffer.byteLength(text)) },
    } as unknown as FastifyRequest;
    const parsed = new Promise<unknown>((resolve, reject) =>
      readJsonBody(
        request,
        payload,
        { bytes: 10_000_000, values: 1_000_000 },
        (body, done) => done(null, JSON.parse(body)),
        (error, body) => {
          order.push('answered');
          if (error) reject(error);
          else resolve(body);
        },
      ),
    );
    payload.on('end', () => setImmediate(() => order.push('a later turn')));
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 16_384) payload.write(bytes.subarray(at, at + 16_384));
    payload.end();
    const body = await parsed;
    await new Promise((resolve) => setImmediate(resolve));
    return { body, pauses, order };
  }

  it('past YIELDING_BODY_BYTES: each chunk in its own turn, the parse and what follows in later turns; the body intact', async () => {
    const emails = Array.from({ length: 5000 }, (_, i) => `someone.${i}@example.com`);
    const text = JSON.stringify({ emails });
    expect(Buffer.byteLength(text)).toBeGreaterThan(YIELDING_BODY_BYTES);
    const { body, pauses, order } = await read(text);
    expect(body).toEqual({ emails });
    expect(pauses).toBeGreaterThan(0);
    expect(order).toEqual(['a later turn', 'answered']);
  });

  it('a short body is parsed and answered at its end, without waiting a turn', async () => {
    const { body, pauses, order } = await read('{"email":"someone@example.com"}');
    expect(body).toEqual({ email: 'someone@example.com' });
    expect(pauses).toBe(0);
    expect(order).toEqual(['answered', 'a later turn']);
  });
});
