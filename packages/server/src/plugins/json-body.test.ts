import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../testing/test-server.js';
import { jsonBodyLimits, jsonValuesOver, LIST_ENTRY_BYTES, SMALL_JSON_BODY_BYTES } from './json-body.js';

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

describe('jsonValuesOver', () => {
  it('counts objects, arrays, members and items, not what is inside strings', () => {
    // 1, plus {, [ and two commas: 5.
    expect(jsonValuesOver('{"a":[1,2,3]}', 4)).toBe(true);
    expect(jsonValuesOver('{"a":[1,2,3]}', 5)).toBe(false);
    expect(jsonValuesOver('{"a":[1,2,3],"b":{}}', 5)).toBe(true);
    expect(jsonValuesOver('{"a":"[,,,{{{,,,]"}', 2)).toBe(false);
    expect(jsonValuesOver('{"a":"x\\",,,,\\\\","b":1}', 3)).toBe(false);
    expect(jsonValuesOver('{"a":"x\\\\",[[[[[[', 3)).toBe(true);
    expect(jsonValuesOver(`[${Array(300_000).fill('{}').join(',')}]`, 10_256)).toBe(true);
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
