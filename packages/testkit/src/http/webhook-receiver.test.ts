import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function post(url: string, body: string | Uint8Array = '{}', init: RequestInit = {}) {
  const res = await fetch(url, { method: 'POST', body, ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function statuses(url: string, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await post(url)).status);
  return out;
}

describe('startWebhookReceiver', () => {
  it('keeps the exact body bytes and the headers, and answers 200 {"received":true} by default', async () => {
    receiver = await startWebhookReceiver();
    const bytes = Buffer.concat([
      Buffer.from(' {"b" :\t"caf\u00e9 \u{1F600}",\r\n  "a":1 }  \n', 'utf8'),
      Buffer.from([0x00, 0xff, 0xfe]),
    ]);
    const res = await post(`${receiver.url}/hooks/batch?job=1`, bytes, {
      headers: { 'content-type': 'application/json', 'X-Signature': 't=1,v1=abc' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"received":true}');
    expect(res.headers.get('content-type')).toBe('application/json');

    const [delivery] = receiver.deliveries;
    expect(delivery?.body.equals(bytes)).toBe(true);
    expect(delivery?.method).toBe('POST');
    expect(delivery?.path).toBe('/hooks/batch?job=1');
    expect(delivery?.headers['x-signature']).toBe('t=1,v1=abc');
    expect(delivery?.rawHeaders).toContain('X-Signature');
    expect(delivery?.index).toBe(0);
    expect(delivery?.response).not.toBe('hang');
    if (delivery?.response === 'hang' || delivery === undefined) throw new Error('unreachable');
    expect(delivery.response.status).toBe(200);
    expect(delivery.response.body.toString()).toBe('{"received":true}');
    expect(delivery.respondedAt).toBeGreaterThanOrEqual(delivery.at);
  });

  it('fails the first N requests with failStatus, then succeeds', async () => {
    receiver = await startWebhookReceiver({ failFirst: 2, failStatus: 503 });
    expect(await statuses(receiver.url, 4)).toEqual([503, 503, 200, 200]);
    expect(receiver.deliveries.map((d) => (d.response === 'hang' ? 0 : d.response.status))).toEqual([
      503, 503, 200, 200,
    ]);
  });

  it('fails with 500 by default and counts again after setBehaviour (down, then up)', async () => {
    receiver = await startWebhookReceiver({ failFirst: 1 });
    expect(await statuses(receiver.url, 2)).toEqual([500, 200]);
    receiver.setBehaviour({ status: 503 });
    expect(await statuses(receiver.url, 2)).toEqual([503, 503]);
    receiver.setBehaviour({});
    expect(await statuses(receiver.url, 1)).toEqual([200]);
    receiver.setBehaviour({ failFirst: 1 });
    expect(await statuses(receiver.url, 2)).toEqual([500, 200]);
  });

  it('answers 410 Gone', async () => {
    receiver = await startWebhookReceiver({ status: 410 });
    const res = await post(receiver.url);
    expect(res.status).toBe(410);
    expect(JSON.parse(res.text)).toEqual({ error: 'Gone' });
  });

  it('sends Retry-After on failures only', async () => {
    receiver = await startWebhookReceiver({ failFirst: 1, failStatus: 429, retryAfter: 7 });
    const first = await post(receiver.url);
    const second = await post(receiver.url);
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '7']);
    expect([second.status, second.headers.get('retry-after')]).toEqual([200, null]);
  });

  it('answers slowly after delayMs', async () => {
    receiver = await startWebhookReceiver({ delayMs: 300 });
    const started = performance.now();
    expect((await post(receiver.url)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('hangs until the client times out, and still closes promptly', async () => {
    receiver = await startWebhookReceiver({ hang: true });
    const started = performance.now();
    const error = await fetch(receiver.url, {
      method: 'POST',
      body: 'x',
      signal: AbortSignal.timeout(200),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe('TimeoutError');
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(receiver.deliveries[0]?.response).toBe('hang');
    expect(receiver.deliveries[0]?.respondedAt).toBeUndefined();

    // A second hanging request whose client never gives up must not hold close() open.
    const pending = fetch(receiver.url, { method: 'POST', body: 'y' }).then(
      () => 'answered',
      () => 'failed',
    );
    await receiver.waitFor(2, 2000);
    // The request hangs for good: close() returning shows it did not wait for it (not timed).
    await receiver.close();
    await receiver.close();
    expect(await pending).toBe('failed');
  });

  it('answers with a large body of exactly bodyBytes bytes', async () => {
    receiver = await startWebhookReceiver({ bodyBytes: 5 * 1024 * 1024 });
    const res = await fetch(receiver.url, { method: 'POST', body: '{}' });
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.byteLength).toBe(5 * 1024 * 1024);
    expect(body.every((b) => b === 0x78)).toBe(true);
  });

  it('lets a function decide each answer from the request and its index', async () => {
    receiver = await startWebhookReceiver({
      respond: (request, index) =>
        index === 0
          ? { status: 409, headers: { 'x-index': index }, body: request.body.toString().toUpperCase() }
          : { status: 202 },
    });
    const first = await post(receiver.url, 'hello');
    expect([first.status, first.headers.get('x-index'), first.text]).toEqual([409, '0', 'HELLO']);
    const second = await post(receiver.url);
    expect([second.status, second.text]).toEqual([202, '{"received":true}']);
  });

  it('answers 500 with the message when the function throws or returns nonsense', async () => {
    receiver = await startWebhookReceiver({
      respond: (_request, index) => {
        if (index === 0) throw new Error('boom');
        return { status: 42 };
      },
    });
    const thrown = await post(receiver.url);
    expect([thrown.status, thrown.text]).toEqual([500, 'boom']);
    const invalid = await post(receiver.url);
    expect(invalid.status).toBe(500);
    expect(invalid.text).toMatch(/status must be an integer status code 200..599, got 42/);
  });

  it('waitFor resolves once n deliveries arrived', async () => {
    receiver = await startWebhookReceiver();
    const waiting = receiver.waitFor(2, 2000);
    await post(receiver.url, 'one');
    await post(receiver.url, 'two');
    const got = await waiting;
    expect(got.map((d) => d.body.toString())).toEqual(['one', 'two']);
    expect(await receiver.waitFor(1)).toHaveLength(1);
  });

  it('waitFor rejects with a clear error on timeout and on close', async () => {
    receiver = await startWebhookReceiver();
    await post(receiver.url);
    await expect(receiver.waitFor(3, 100)).rejects.toThrow(
      'webhook receiver: timed out after 100 ms waiting for 3 deliveries (got 1)',
    );
    const pending = receiver.waitFor(2, 5000);
    await receiver.close();
    await expect(pending).rejects.toThrow('webhook receiver closed while waiting for 2 deliveries (got 1)');
    await expect(receiver.waitFor(-1)).rejects.toThrow(TypeError);
  });

  it('rejects invalid options with a TypeError naming the field', async () => {
    await expect(startWebhookReceiver({ failFirst: -1 })).rejects.toThrow(
      /startWebhookReceiver: options.failFirst must be an integer >= 0, got -1/,
    );
    await expect(startWebhookReceiver({ host: '10.0.0.1' })).rejects.toThrow(
      /options.host must be a 127.x.y.z loopback address, got "10.0.0.1"/,
    );
    await expect(startWebhookReceiver({ host: '127.0.0.01' })).rejects.toThrow(TypeError);
    await expect(startWebhookReceiver({ failStatus: 700 })).rejects.toThrow(/options.failStatus must be/);
    await expect(startWebhookReceiver({ failfirst: 2 } as never)).rejects.toThrow(
      /unknown field 'failfirst'/,
    );
    await expect(startWebhookReceiver({ body: 'x', bodyBytes: 3 })).rejects.toThrow(
      /both body and bodyBytes/,
    );
    await expect(startWebhookReceiver({ respond: () => ({}), failFirst: 1 })).rejects.toThrow(
      /respond decides every answer; do not combine it with failFirst/,
    );
    await expect(startWebhookReceiver({ hang: 'yes' as never })).rejects.toThrow(
      /options.hang must be a boolean/,
    );
    await expect(startWebhookReceiver({ retryAfter: -3 })).rejects.toThrow(/options.retryAfter must be/);
    receiver = await startWebhookReceiver();
    expect(() => receiver?.setBehaviour({ delayMs: Number.NaN })).toThrow(
      /WebhookReceiver.setBehaviour: behaviour.delayMs must be a finite number/,
    );
  });
});
