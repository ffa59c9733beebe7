import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestServer } from '../testing/test-server.js';

const run = promisify(execFile);
const REDOCLY = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the served OpenAPI document under redocly lint (@redocly/cli, its recommended rules)', () => {
  it('has no errors and no warnings', async () => {
    const server = await createTestServer();
    const file = join(dir, 'openapi.json');
    try {
      writeFileSync(file, (await server.app.inject({ method: 'GET', url: '/v2/openapi.json' })).body);
    } finally {
      await server.app.close();
    }
    const result = await run(REDOCLY, ['lint', file, '--format=json'], {
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }));
    const report = JSON.parse(result.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
