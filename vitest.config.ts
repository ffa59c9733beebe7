import { defineConfig } from 'vitest/config';

// One vitest project per package (each package's vitest.config.ts names it), and `test/` (e2e).
export default defineConfig({
  test: {
    projects: ['packages/*', 'test'],
  },
});
