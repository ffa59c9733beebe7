import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sharedTempDir } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import { defaultGeoCacheDir, svcDataDir } from './default-location.js';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/** The code block after `<!-- example: name -->` in the package README. */
async function readmeExample(name: string): Promise<string> {
  const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match?.[1]) throw new Error(`no example "${name}" in the README`);
  return match[1];
}

describe('the default geo data dir', () => {
  it("is svc's data dir's geo folder: $SVC_DATA_DIR, then $XDG_DATA_HOME, then ~/.local/share", () => {
    expect(defaultGeoCacheDir({ SVC_DATA_DIR: '/srv/svc', XDG_DATA_HOME: '/x' })).toBe('/srv/svc/geo');
    expect(defaultGeoCacheDir({ XDG_DATA_HOME: '/x', XDG_CACHE_HOME: '/c' })).toBe('/x/svc/geo');
    expect(svcDataDir({ HOME: '/home/u', XDG_CACHE_HOME: '/c' })).toBe('/home/u/.local/share/svc');
  });
});

describe('createDefaultGeoResolver', () => {
  const dataDir = sharedTempDir('geo-default-');

  it('compiles and verifies the real data on first use without stalling the event loop', async () => {
    // In a child process, as a server would start on a fresh cache dir.
    const { stdout } = await run(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        fileURLToPath(new URL('../testing/default-data-child.ts', import.meta.url)),
      ],
      { cwd: packageDir, env: { ...process.env, CHILD_CACHE_DIR: join(dataDir(), 'geo') } },
    );
    const { asn, latitude, accuracy_radius_km } = JSON.parse(stdout) as {
      asn: number;
      latitude: number | null;
      accuracy_radius_km: number | null;
    };
    expect(asn).toBe(13335);
    // DB-IP Lite gives coordinates but no radius: the radius stays null, never invented.
    expect(typeof latitude).toBe('number');
    expect(accuracy_radius_km).toBeNull();
    // The worst event-loop delay meanwhile (the compile runs in a child process; on the main
    // thread it stalled 0.7-1.8 s) is measured by the geo-stall benchmark, not bounded here.
  }, 180_000);

  it("runs the README's example as written: no paths, the real default data", async () => {
    const code = await readmeExample('default-resolver');
    // Run as an app would, importing the package by name (from its own directory, where the
    // package and its optional peer data packages resolve).
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--input-type=module', '--eval', code],
      { cwd: packageDir, env: { ...process.env, SVC_DATA_DIR: dataDir() } },
    );
    const [answer, ...attribution] = stdout.trim().split('\n');
    expect(JSON.parse(answer ?? '')).toEqual({
      country: 'US',
      city: expect.any(String),
      asn: 15169,
      org: expect.stringMatching(/Google/),
    });
    expect(attribution.join('\n')).toContain('DB-IP');
    // The cache dir the environment names was prepared by the test above: nothing to redo.
    expect(stderr).not.toContain('compiling');
    expect(stderr).not.toContain('verifying');
  }, 180_000);
});
