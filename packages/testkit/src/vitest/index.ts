// @svc/testkit/vitest: helpers that register vitest hooks, so only test files import them
// (benchmarks import the root entry, which never loads vitest).
export { sharedTempDir, tempDirPerTest } from './temp-dir.js';
