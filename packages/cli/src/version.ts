import { readFileSync } from 'node:fs';

/** The CLI's version, read from its package.json (works from src/ and dist/). */
export function cliVersion(): string {
  const url = new URL('../package.json', import.meta.url);
  const manifest = JSON.parse(readFileSync(url, 'utf8')) as { version: string };
  return manifest.version;
}
