import { isPublicIp } from '@svc/ip-address';
import { type StaticSite, startStaticSite, startWebhookReceiver, type WebhookReceiver } from '@svc/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook, type WebhookLookup } from './post.js';

const allowLoopback = (ip: string) => ip.startsWith('127.') || isPublicIp(ip);
const headers = { 'content-type': 'application/json', 'x-service-signature': 't=1,v1=00' };

let receiver: WebhookReceiver | undefined;
let site: StaticSite | undefined;
afterEach(async () => {
  await receiver?.close();
  await site?.close();
  receiver = undefined;
  site = undefined;
});

describe('postWebhook', () => {
  it('POSTs the exact body with the given headers and reports the status', async () => {
    receiver = await startWebhookReceiver();
    const body = '{"id":"evt_1",  "object":"event"}';
    const result = await postWebhook(`${receiver.url}/hooks`, body, {
      headers,
      isAllowedAddress: allowLoopback,
    });
    expect(result).toMatchObject({ status: 200, error: null });
    expect(receiver.deliveries[0]?.body.toString('utf8')).toBe(body);
    expect(receiver.deliveries[0]?.headers['x-service-signature']).toBe('t=1,v1=00');
    expect(receiver.deliveries[0]?.method).toBe('POST');
  });

  it('reports 500, 410 and Retry-After as they come', async () => {
    receiver = await startWebhookReceiver({ failFirst: 1, retryAfter: '120' });
    const first = await postWebhook(receiver.url, '{}', { headers, isAllowedAddress: allowLoopback });
    expect(first).toMatchObject({ status: 500, retryAfter: '120' });
    receiver.setBehaviour({ status: 410 });
    expect((await postWebhook(receiver.url, '{}', { headers, isAllowedAddress: allowLoopback })).status).toBe(
      410,
    );
  });

  it('does not follow redirects', async () => {
    site = await startStaticSite({
      routes: { '/hook': { status: 302, headers: { location: 'http://127.0.0.1:1/' } } },
    });
    const result = await postWebhook(`${site.url}/hook`, '{}', { headers, isAllowedAddress: allowLoopback });
    expect(result.status).toBe(302);
    expect(site.requests).toHaveLength(1);
  });

  it('gives up on a hanging receiver after the timeout', async () => {
    receiver = await startWebhookReceiver({ hang: true });
    // The receiver never answers: only the timeout can end the post (no timing asserted).
    const result = await postWebhook(receiver.url, '{}', {
      headers,
      isAllowedAddress: allowLoopback,
      timeoutMs: 300,
    });
    expect(result.status).toBeNull();
    expect(result.error).toContain('no response within 300 ms');
  });

  it('reads at most maxResponseBytes of a large answer', async () => {
    receiver = await startWebhookReceiver({ bodyBytes: 5_000_000 });
    const result = await postWebhook(receiver.url, '{}', {
      headers,
      isAllowedAddress: allowLoopback,
      maxResponseBytes: 100,
    });
    expect(result.status).toBe(200);
    expect(result.bodyExcerpt.length).toBe(100);
  });

  it.each([
    ['http://127.0.0.1:9/hook', '127.0.0.1 is a private or reserved address'],
    ['http://[::1]:9/hook', '::1 is a private or reserved address'],
    ['http://10.0.0.5/hook', '10.0.0.5 is a private or reserved address'],
    ['http://localhost:9/hook', 'localhost resolves to'],
    ['ftp://example.com/hook', 'only http and https URLs'],
    ['not a url', 'not a URL'],
  ])('the SSRF guard refuses %s before connecting', async (url, message) => {
    const result = await postWebhook(url, '{}', { headers, isAllowedAddress: isPublicIp });
    expect(result.status).toBeNull();
    expect(result.error).toContain(message);
  });

  describe('the connect-time check of names, with an injected lookup', () => {
    // A name that looks public but whose DNS answer is loopback: a rebinding attempt.
    const rebinding = (answers: string[]) => {
      const asked: string[] = [];
      const lookup: WebhookLookup = async (hostname) => {
        asked.push(hostname);
        return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      };
      return { asked, lookup };
    };

    it('refuses a public-looking name that resolves to 127.0.0.1, without connecting', async () => {
      receiver = await startWebhookReceiver();
      const { port } = new URL(receiver.url);
      const { asked, lookup } = rebinding(['127.0.0.1']);
      const result = await postWebhook(`http://hooks.example.com:${port}/hook`, '{}', {
        headers,
        isAllowedAddress: isPublicIp,
        lookup,
      });
      expect(result.status).toBeNull();
      expect(result.error).toBe('hooks.example.com resolves to 127.0.0.1, a private or reserved address');
      expect(asked).toEqual(['hooks.example.com']);
      expect(receiver.deliveries).toHaveLength(0);
    });

    it('refuses the name when any one of its answers is private', async () => {
      receiver = await startWebhookReceiver();
      const { port } = new URL(receiver.url);
      const { lookup } = rebinding(['93.184.216.34', '127.0.0.1']);
      const result = await postWebhook(`http://hooks.example.com:${port}/hook`, '{}', {
        headers,
        isAllowedAddress: isPublicIp,
        lookup,
      });
      expect(result.error).toContain('resolves to 127.0.0.1');
      expect(receiver.deliveries).toHaveLength(0);
    });

    it('connects to the answer the guard allowed, keeping the name in the Host header', async () => {
      receiver = await startWebhookReceiver();
      const { port } = new URL(receiver.url);
      const { lookup } = rebinding(['127.0.0.1']);
      const result = await postWebhook(`http://hooks.example.com:${port}/hook`, '{"a":1}', {
        headers,
        isAllowedAddress: allowLoopback,
        lookup,
      });
      expect(result).toMatchObject({ status: 200, error: null });
      expect(receiver.deliveries[0]?.headers.host).toBe(`hooks.example.com:${port}`);
      expect(receiver.deliveries[0]?.body.toString('utf8')).toBe('{"a":1}');
    });

    it('reports a failed lookup as a failed attempt', async () => {
      const lookup: WebhookLookup = async (hostname) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      };
      const result = await postWebhook('http://hooks.example.com/hook', '{}', {
        headers,
        isAllowedAddress: isPublicIp,
        lookup,
      });
      expect(result).toMatchObject({ status: null, error: 'getaddrinfo ENOTFOUND hooks.example.com' });
    });
  });
});
