import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

// The root `pnpm test` builds first (tsc --build), so the real binary is exercised as users run it.
describe.runIf(existsSync(bin))('the built svc binary', () => {
  it('answers --help with exit 0', async () => {
    const { stdout } = await run(process.execPath, [bin, '--help']);
    expect(stdout).toContain('Usage: svc <command>');
  });

  it('exits 2 with a message on stderr for an unknown command', async () => {
    const failure = await run(process.execPath, [bin, 'frobnicate']).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('unknown command "frobnicate"');
  });
});
