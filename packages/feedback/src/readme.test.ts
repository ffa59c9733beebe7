import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

describe('README', () => {
  it('its example runs and prints what it says', async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const file = new URL('./readme-example.generated.ts', import.meta.url);
    writeFileSync(file, (example as string).replace("from '@svc/feedback'", "from './index.js'"));
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import(/* @vite-ignore */ file.href);
      expect(log).toHaveBeenCalledWith(
        'deliverable',
        ['previously_delivered', 'catch_all'],
        expect.any(String),
      );
    } finally {
      log.mockRestore();
      rmSync(file, { force: true });
    }
  });
});
