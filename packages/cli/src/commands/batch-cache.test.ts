import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeDnsServer, type SmtpFleet, startDnsServer, startSmtpFleet } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';
import { fleetFlags } from '../testing/fleet-flags.js';

// svc batch run --probe keeps probed results in its --db file: a second run of the list on the
// same file does not probe again, unless --fresh.

let dir: string;
let dns: FakeDnsServer;
let fleet: SmtpFleet;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-batch-cache-'));
  dns = await startDnsServer({
    zones: {
      'canary.test': { A: ['192.0.2.1'] },
      'good.test': { MX: [{ priority: 10, exchange: 'mx.good.test' }] },
      'mx.good.test': { A: ['127.0.0.2'] },
    },
  });
  fleet = await startSmtpFleet({
    hosts: ['127.0.0.2'],
    script: { mailboxes: { 'alice@good.test': 'accept', 'bob@good.test': 'accept' } },
  });
});
afterAll(async () => {
  await Promise.all([fleet?.close(), dns?.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** Runs the list on `jobs.db` and returns each result's cached_at (null when probed now). */
async function run(...extra: string[]): Promise<Array<string | null>> {
  const io = captureIo();
  io.env.SVC_DATA_DIR = join(dir, 'data');
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}.ndjson`);
  const argv = [
    'batch',
    'run',
    '--type',
    'verify_email',
    '--file',
    join(dir, 'list.txt'),
    '--db',
    join(dir, 'jobs.db'),
  ];
  argv.push('--out', out, '--probe', ...fleetFlags(dns, fleet), ...extra);
  expect(await main(argv, io), io.err()).toBe(EXIT.ok);
  const lines = (await readFile(out, 'utf8')).trim().split('\n');
  return lines.map((line) => JSON.parse(line).result.cached_at ?? null);
}

async function asked(): Promise<string[]> {
  await fleet.waitForIdle();
  return fleet.sessions.flatMap((session) =>
    session.rcpts.map((rcpt) => rcpt.address).filter((address) => !/^[a-z0-9]{16}@/.test(address)),
  );
}

describe('svc batch run --probe and the result cache in its --db file', () => {
  it('answers a repeated list from the file without probing; --fresh probes again', async () => {
    await writeFile(join(dir, 'list.txt'), 'alice@good.test\nbob@good.test\n');
    expect(await run()).toEqual([null, null]);
    expect((await asked()).sort()).toEqual(['alice@good.test', 'bob@good.test']);
    fleet.resetRecords();

    const cached = await run();
    expect(cached.every((at) => at !== null && !Number.isNaN(Date.parse(at)))).toBe(true);
    expect(fleet.sessions).toHaveLength(0);

    expect(await run('--fresh')).toEqual([null, null]);
    expect((await asked()).sort()).toEqual(['alice@good.test', 'bob@good.test']);
  });

  it('refuses --fresh for a geo_ip job', async () => {
    const io = captureIo();
    io.env.SVC_DATA_DIR = join(dir, 'data');
    await writeFile(join(dir, 'ips.txt'), '8.8.8.8\n');
    expect(
      await main(['batch', 'run', '--type', 'geo_ip', '--file', join(dir, 'ips.txt'), '--fresh'], io),
    ).toBe(EXIT.usage);
    expect(io.err()).toContain('--fresh applies to --type verify_email only');
  });
});
