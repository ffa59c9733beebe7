import { packageProject } from '../vitest.shared.js';

// The end-to-end suite: each file starts `svc serve` from source (tsx) as a child process.
export default packageProject('e2e', { include: ['**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 });
