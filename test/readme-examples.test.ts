import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Every package README's example runs as a user would run it: each code block right after the
// marker line below is written to a file in an empty folder that sees the package (and what the
// package itself can import) under node_modules, and run with node and tsx from the sources. It
// must exit 0. The CLI and the dashboard are applications: their READMEs show shell sessions, which
// the e2e suite exercises through `svc` itself.
const MARKER = '<!-- example: run by test/readme-examples.test.ts -->';
const APPLICATIONS = new Set(['cli', 'dashboard']);
const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

const packages = readdirSync(join(root, 'packages')).filter(
  (name) => existsSync(join(root, 'packages', name, 'README.md')) && !APPLICATIONS.has(name),
);

function examplesOf(readme: string): { lang: string; code: string }[] {
  const examples: { lang: string; code: string }[] = [];
  const pattern = new RegExp(`${MARKER}\\n\`\`\`(ts|js)\\n([\\s\\S]*?)\\n\`\`\`\\n`, 'g');
  for (const match of readme.matchAll(pattern))
    examples.push({ lang: match[1] ?? 'ts', code: match[2] ?? '' });
  return examples;
}

/** A folder whose node_modules holds what packages/<name> sees, the package itself and tsx. */
async function sandboxFor(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `svc-readme-${name}-`));
  const own = join(root, 'packages', name, 'node_modules');
  const modules = join(dir, 'node_modules');
  await mkdir(join(modules, '@svc'), { recursive: true });
  for (const entry of await readdir(own)) {
    if (entry === '@svc' || entry === '.bin') continue;
    await symlink(join(own, entry), join(modules, entry));
  }
  if (existsSync(join(own, '@svc'))) {
    for (const entry of await readdir(join(own, '@svc'))) {
      await symlink(join(own, '@svc', entry), join(modules, '@svc', entry));
    }
  }
  const manifest = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')) as {
    name: string;
  };
  const self = join(modules, manifest.name);
  if (!existsSync(self)) await symlink(join(root, 'packages', name), self);
  if (!existsSync(join(modules, 'tsx')))
    await symlink(join(root, 'test', 'node_modules', 'tsx'), join(modules, 'tsx'));
  return dir;
}

describe('README examples', () => {
  it.each(packages)('packages/%s/README.md has a tested example', (name) => {
    const readme = readFileSync(join(root, 'packages', name, 'README.md'), 'utf8');
    expect(
      examplesOf(readme).length,
      `mark its example with ${MARKER} on the line before the block`,
    ).toBeGreaterThan(0);
  });

  for (const name of packages) {
    const readme = readFileSync(join(root, 'packages', name, 'README.md'), 'utf8');
    examplesOf(readme).forEach(({ lang, code }, index) => {
      it(`packages/${name}/README.md example ${index + 1} runs`, { timeout: 300_000 }, async () => {
        const dir = await sandboxFor(name);
        try {
          const file = join(dir, `example.${lang === 'ts' ? 'mts' : 'mjs'}`);
          await writeFile(file, `${code}\n`);
          const { stdout } = await run(process.execPath, ['--conditions=source', '--import', 'tsx', file], {
            cwd: dir,
            env: { ...process.env, WEBHOOK_SECRET: 'whsec_readme_example_secret_0123456789' },
            timeout: 290_000,
          }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
            throw new Error(
              `${error.message}\nstdout:\n${error.stdout ?? ''}\nstderr:\n${error.stderr ?? ''}`,
            );
          });
          expect(typeof stdout).toBe('string');
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    });
  }
});
