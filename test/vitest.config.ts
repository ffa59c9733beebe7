import { packageProject } from '../vitest.shared.js';

// The end-to-end suite: each file starts `svc serve` from source (tsx) as a child process
// (scale-out.e2e.test.ts starts five from the built CLI: build first).
export default packageProject('e2e', { include: ['**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 });
