#!/usr/bin/env node
// Checks packed tarballs (`pnpm pack` output) ship what they point at: every `exports`, `bin`,
// `main` and `types` target, every source a `.map` file names, a LICENSE; and nothing a user
// should not get (tests, build info, unresolved `workspace:` ranges).
// Usage: node scripts/check-tarballs.mjs <file.tgz>...   Exits 1 listing every problem.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, posix, relative } from 'node:path';

const tarballs = process.argv.slice(2);
if (tarballs.length === 0) {
  console.error('usage: node scripts/check-tarballs.mjs <file.tgz>...');
  process.exit(2);
}

/** Every string in an `exports`/`bin` value, however deeply its conditions nest. */
function targets(value) {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const problems = [];
const work = mkdtempSync(join(tmpdir(), 'check-tarballs-'));
try {
  for (const tarball of tarballs) {
    const dir = join(work, basename(tarball));
    execFileSync('mkdir', ['-p', dir]);
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
    const root = join(dir, 'package');
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const say = (problem) => problems.push(`${manifest.name}: ${problem}`);
    const files = walk(root).map((file) => relative(root, file).split('\\').join('/'));

    const pointed = [
      ...targets(manifest.exports),
      ...targets(manifest.bin),
      ...targets(manifest.main),
      ...targets(manifest.types),
    ];
    for (const target of pointed) {
      if (!existsSync(join(root, target))) {
        const hint = target.includes('dist/')
          ? " (is the package in tsconfig.json's references, so that `tsc --build` builds it?)"
          : '';
        say(`points at ${target}, which is not in the tarball${hint}`);
      }
    }
    for (const map of files.filter((file) => file.endsWith('.map'))) {
      const { sources = [], sourceRoot = '' } = JSON.parse(readFileSync(join(root, map), 'utf8'));
      for (const source of sources) {
        const path = posix.normalize(posix.join(posix.dirname(map), sourceRoot, source));
        if (path.startsWith('..') || !existsSync(join(root, path))) {
          say(`${map} names ${source}, which is not in the tarball`);
        }
      }
    }
    if (!files.includes('LICENSE')) say('has no LICENSE file');
    // svc serve serves /dashboard from the server's own folder: a global install needs it built in.
    if (manifest.name === '@svc/server' && !files.includes('dashboard/index.html')) {
      say('has no dashboard/index.html (run `pnpm --filter @svc/dashboard build` before packing)');
    }
    if (manifest.license !== 'MIT') say(`license is ${JSON.stringify(manifest.license)}, not "MIT"`);
    for (const file of files) {
      if (/\.test\.[cm]?[jt]s$/.test(file) || file.endsWith('.tsbuildinfo') || /(^|\/)testing\//.test(file)) {
        say(`ships ${file}, which is for the project's own tests or build`);
      }
    }
    // An app with `skipLibCheck: false` typechecks every .d.ts it reaches from the package's
    // entry points: one importing a package the app may not have (an optional peer, a
    // devDependency) fails with "Cannot find module". Followed from each `types` target through
    // relative imports, as tsc does.
    const optional = new Set(
      Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta?.optional)
        .map(([name]) => name),
    );
    const installed = new Set(
      [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})].filter(
        (name) => !optional.has(name),
      ),
    );
    const reached = new Set(
      pointed.filter((target) => target.endsWith('.d.ts')).map((target) => posix.normalize(target)),
    );
    for (const file of reached) {
      if (!existsSync(join(root, file))) continue;
      const text = readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const [, specifier] of text.matchAll(/(?:\bfrom|\bimport\(|\bimport)\s*['"]([^'"]+)['"]/g)) {
        if (specifier.startsWith('.')) {
          reached.add(posix.join(posix.dirname(file), specifier.replace(/\.js$/, '.d.ts')));
          continue;
        }
        if (specifier.startsWith('node:')) continue;
        const name = specifier
          .split('/')
          .slice(0, specifier.startsWith('@') ? 2 : 1)
          .join('/');
        if (name === manifest.name || installed.has(name)) continue;
        say(
          `${file} imports ${specifier}, ${optional.has(name) ? 'an optional peer' : 'not a dependency'}: an app with skipLibCheck false and without it cannot typecheck (declare the types used locally)`,
        );
      }
    }
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (String(range).startsWith('workspace:')) say(`${field}.${name} is still ${range}`);
      }
    }
    console.log(
      `${manifest.name}@${manifest.version}: ${files.length} files, ${pointed.length} entry points`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
