import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

// The page is built into the server package (packages/server/dashboard/), which serves it at
// /dashboard and ships it in its tarball; nothing here is loaded from anywhere but the server.
export default defineConfig({
  base: '/dashboard/',
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Workspace packages (the job-type registry of @svc/core) from their sources, as in tests.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../server/dashboard', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
