import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { writePrivateFileAtomic } from '@svc/core';
import { compileAsnCsv } from './compile-asn.js';

/**
 * Compiles ASN CSVs into the mmdb file `target` in a child process: the compile is about 10 s of
 * CPU (see the README), and the writer's final `toBuffer()` alone holds its thread for over a second, which on the
 * main thread would stall a server starting on a fresh cache dir. (A worker thread still stalled
 * the main thread for about a second when it finished; a process shares nothing.) When the child
 * fails, for instance because it cannot load this module's TypeScript source (a test runner whose
 * loader child processes do not inherit), it compiles here instead.
 */
export async function compileAsnFileInChild(
  paths: readonly string[],
  description: string,
  target: string,
): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const entry = fileURLToPath(
    new URL(`./compile-asn-child${self.slice(self.lastIndexOf('.'))}`, import.meta.url),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [...nodeOptions(), entry, target, description, ...paths], (error) =>
        error ? reject(error) : resolve(),
      );
    });
  } catch {
    // The child could not run (no TypeScript loader, a bundled copy without the entry file) or
    // the compile failed: compiling here either works or throws the compile's own error.
    await writePrivateFileAtomic(target, await compileAsnCsv(paths, description));
  }
}

/**
 * This process's Node options (a TypeScript loader such as `--import tsx` included) without those
 * about the main script's input (`node --input-type=module --eval …`).
 */
function nodeOptions(): string[] {
  const kept: string[] = [];
  const argv = process.execArgv;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (['-e', '--eval', '-p', '--print'].includes(arg)) index++;
    else if (!arg.startsWith('--input-type') && !/^(-e|--eval|-p|--print)=/.test(arg)) kept.push(arg);
  }
  return kept;
}
