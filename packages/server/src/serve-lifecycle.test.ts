import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { mkdtemp, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HealthCheck } from './routes/health-checks.js';
import { geoReloadTriggers, prepareDataDir, readTlsPair, startHealthServer } from './serve-lifecycle.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-serve-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('prepareDataDir', () => {
  it('creates the folder, parents included, as 0700 under a 022 umask', () => {
    const previous = process.umask(0o022);
    try {
      const target = join(dir, 'a', 'data');
      expect(prepareDataDir(target)).toEqual([]);
      expect(statSync(target).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });

  it('reports an existing folder others can read, and leaves its mode alone', () => {
    const target = join(dir, 'shared');
    mkdirSync(target);
    chmodSync(target, 0o755);
    expect(prepareDataDir(target)).toEqual([expect.stringContaining('mode 0755); chmod 700 it')]);
    expect(statSync(target).mode & 0o777).toBe(0o755);
  });

  it('refuses a data dir that is a file', async () => {
    const target = join(dir, 'file');
    await writeFile(target, 'x');
    expect(() => prepareDataDir(target)).toThrow(`the data dir ${target} is not a folder`);
  });
});

describe('readTlsPair', () => {
  it('names the setting and the file it cannot use', async () => {
    const cert = join(dir, 'cert.pem');
    await writeFile(cert, '-----BEGIN CERTIFICATE-----\n');
    await expect(readTlsPair({ certFile: cert, keyFile: join(dir, 'none.pem') })).rejects.toThrow(
      `cannot use tls.keyFile ${join(dir, 'none.pem')}: no such file`,
    );
    await writeFile(join(dir, 'key.der'), Buffer.from([0x30, 0x82]));
    await expect(readTlsPair({ certFile: cert, keyFile: join(dir, 'key.der') })).rejects.toThrow(
      /tls\.keyFile .*key\.der: not a PEM file/,
    );
  });
});

describe('geoReloadTriggers', () => {
  it('reloads when a stamp file is replaced (as svc geo update installs), and never twice at once', async () => {
    const stamp = join(dir, 'city.mmdb');
    await writeFile(stamp, 'v1');
    let calls = 0;
    let concurrent = 0;
    let peak = 0;
    const reloaded: (() => void)[] = [];
    const triggers = geoReloadTriggers({
      reload: async () => {
        calls += 1;
        concurrent += 1;
        peak = Math.max(peak, concurrent);
        // A reload spans a turn of the event loop, so triggers meanwhile overlap it.
        await new Promise(setImmediate);
        concurrent -= 1;
        reloaded.shift()?.();
      },
      intervalSeconds: 0,
      stampFiles: [stamp, join(dir, 'not-yet.mmdb')],
      signals: false,
      onError: () => {},
      pollMs: 20,
    });
    try {
      const done = new Promise<void>((resolve) => reloaded.push(resolve));
      // mtime resolution can be coarse: the new file's time is set a minute on, not waited for.
      await writeFile(join(dir, 'next.tmp'), 'v2');
      const later = new Date(Date.now() + 60_000);
      await utimes(join(dir, 'next.tmp'), later, later);
      await rename(join(dir, 'next.tmp'), stamp);
      await done;
      expect(calls).toBe(1);
      await new Promise((resolve) => setImmediate(resolve)); // let that run end
      // Three triggers during one reload: one reload now, one more after it, never two at once.
      await Promise.all([triggers.trigger(), triggers.trigger(), triggers.trigger()]);
      expect(calls).toBe(3);
      expect(peak).toBe(1);
      // A file that appears later counts too.
      const appeared = new Promise<void>((resolve) => reloaded.push(resolve));
      await writeFile(join(dir, 'not-yet.mmdb'), 'v1');
      await appeared;
      expect(calls).toBe(4);
    } finally {
      triggers.stop();
    }
  });

  it('reports a failed reload and keeps triggering', async () => {
    const errors: string[] = [];
    let calls = 0;
    const triggers = geoReloadTriggers({
      reload: async () => {
        calls += 1;
        throw new Error(`bad data ${calls}`);
      },
      intervalSeconds: 0,
      stampFiles: [],
      signals: false,
      onError: (error) => errors.push(error.message),
    });
    await triggers.trigger();
    await triggers.trigger();
    triggers.stop();
    expect(errors).toEqual(['bad data 1', 'bad data 2']);
  });
});

describe('startHealthServer (a worker’s health port)', () => {
  it('200 ok while its checks pass; 200 degraded naming the failed one; 500 when its stores do not answer', async () => {
    const dnsCheck: HealthCheck = { id: 'dns_resolver', status: 'ok', message: 'resolves' };
    let storesAnswer = true;
    const health = await startHealthServer({
      host: '127.0.0.1',
      port: 0,
      tls: null,
      ready: async () => {
        if (!storesAnswer) throw new Error('down');
      },
      checks: () => [dnsCheck],
      now: () => Date.UTC(2026, 0, 2),
    });
    try {
      const get = async () => {
        const response = await fetch(`${health.url}/v2/health`);
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      expect(await get()).toMatchObject({
        status: 200,
        body: {
          status: 'ok',
          failing: [],
          checks: [dnsCheck],
          role: 'worker',
          time: '2026-01-02T00:00:00.000Z',
        },
      });
      dnsCheck.status = 'failed';
      expect(await get()).toMatchObject({
        status: 200,
        body: { status: 'degraded', failing: ['dns_resolver'], checks: [dnsCheck], role: 'worker' },
      });
      storesAnswer = false;
      expect(await get()).toMatchObject({ status: 500, body: { error: { code: 'internal_error' } } });
    } finally {
      await health.close();
    }
  });
});
