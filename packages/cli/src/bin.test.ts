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

  it('answers `svc geo 8.8.8.8` from the default data with no configuration', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-data-'));
    try {
      // First use compiles the ASN data and verifies the city files; later runs reuse them.
      const { stdout } = await run(process.execPath, [bin, 'geo', '8.8.8.8', '--json'], {
        env: { ...process.env, SVC_DATA_DIR: dataDir },
      });
      const result = JSON.parse(stdout);
      expect(result).toMatchObject({
        ip: '8.8.8.8',
        country: 'US',
        asn: 15169,
        timezone: expect.stringMatching(/^America\//),
      });
      expect(typeof result.city).toBe('string');
      expect(typeof result.latitude).toBe('number');
      expect(result.org).toMatch(/Google/);
      // The bundled DB-IP Lite data has no accuracy radius: unknown, never invented.
      expect(result.accuracy_radius_km).toBeNull();
      expect(result.sources).not.toHaveProperty('accuracy_radius_km');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('exits 2 with a message on stderr for an unknown command', async () => {
    const failure = await run(process.execPath, [bin, 'frobnicate']).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('unknown command "frobnicate"');
  });
});
