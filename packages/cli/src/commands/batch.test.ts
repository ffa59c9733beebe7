import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

describe('svc batch on a SQLite file', () => {
  let dir: string;
  const io = (stdin = '') => {
    const captured = captureIo(stdin);
    captured.env.SVC_DATA_DIR = join(dir, 'data');
    return captured;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-batch-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a geo_ip job, writes the results, and reads status and results back from the file', async () => {
    const input = join(dir, 'ips.txt');
    await writeFile(input, '8.8.8.8\n10.0.0.1\n1.1.1.1\n');
    const db = join(dir, 'jobs.db');
    const run = io();
    expect(
      await main(
        ['batch', 'run', '--type', 'geo_ip', '--file', input, '--db', db, '--out', join(dir, 'out.ndjson')],
        run,
      ),
    ).toBe(
      EXIT.failure, // one record failed (a private address)
    );
    const id = run.out().trim();
    expect(id).toMatch(/^batch_/);
    expect(run.err()).toContain('batch: completed: 2 ok, 1 failed {"located":2}');
    const lines = (await readFile(join(dir, 'out.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.index, line.ok])).toEqual([
      [0, true],
      [1, false],
      [2, true],
    ]);
    expect(lines[0].result).toMatchObject({ ip: '8.8.8.8', country: 'US', asn: 15169 });

    const status = io();
    expect(await main(['batch', 'status', id, '--db', db, '--json'], status)).toBe(EXIT.ok);
    expect(JSON.parse(status.out())).toMatchObject({
      id,
      object: 'batch_job',
      status: 'completed',
      processed: 3,
      failed: 1,
    });
    const results = io();
    expect(await main(['batch', 'results', id, '--db', db, '--format', 'csv'], results)).toBe(EXIT.ok);
    expect(results.out().split('\n')[0]).toMatch(/^index,input,ok,error_code,error_message,result\.ip/);
  }, 120_000);

  it.each([
    [['batch'], 'the subcommands are: run, status, results'],
    [['batch', 'run', '--file', 'x.txt'], '--type must be verify_email or geo_ip'],
    [['batch', 'run', '--type', 'geo_ip'], 'batch run needs --file'],
    [['batch', 'status'], 'batch status needs a job id'],
  ])('bad usage %j exits 2', async (argv, message) => {
    const captured = io();
    expect(await main(argv, captured)).toBe(EXIT.usage);
    expect(captured.err()).toContain(message);
  });

  it('reports an unknown job id as not found', async () => {
    const captured = io();
    expect(await main(['batch', 'status', 'batch_nope', '--db', join(dir, 'jobs.db')], captured)).toBe(
      EXIT.failure,
    );
    expect(captured.err()).toContain('no batch job "batch_nope"');
  });
});
