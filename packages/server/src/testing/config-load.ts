import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ConfigError, loadServerConfig } from '../config.js';

/** Writes a config file `name` in `dir` (`content` as JSON unless it is a string); returns its path. */
export async function configFile(dir: string, content: unknown, name = 'svc.json'): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** The ConfigError a load throws (fails the test when it does not throw one). */
export async function loadError(input: Parameters<typeof loadServerConfig>[0]): Promise<ConfigError> {
  const error = await loadServerConfig(input).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}
