import { describe, expect, it } from 'vitest';
import { createBatchRunner } from '../runner/runner.js';
import { createMemoryStore } from '../stores/memory.js';
import { type BulkVerifier, createVerifyEmailProcessor } from './verify-email.js';

/** A verifier that records the cache namespace of each call (a real one is tested with the server). */
function recordingVerifier() {
  const namespaces: Array<string | undefined> = [];
  const verifier: BulkVerifier = {
    async verifyMany(emails, _options, events) {
      namespaces.push(events?.cacheNamespace);
      return emails.map(() => ({ state: 'deliverable' }));
    },
  };
  return { verifier, namespaces };
}

async function runJobs(options: { shareCacheAcrossAccounts?: boolean }, accounts: Array<string | null>) {
  const { verifier, namespaces } = recordingVerifier();
  const runner = createBatchRunner({
    store: createMemoryStore(),
    processors: [createVerifyEmailProcessor(verifier, options)],
    pollIntervalMs: 5,
  });
  runner.start();
  for (const account of accounts) {
    const job = await runner.submit({ type: 'verify_email', records: ['a@x.test'], account_id: account });
    await expect.poll(async () => (await runner.get(job.id)).status).toBe('completed');
  }
  await runner.close();
  return namespaces;
}

describe('verify_email and the result cache', () => {
  it("reads and writes each owning account's namespace; a job without an owner the shared one", async () => {
    expect(await runJobs({}, ['acct_a', 'acct_b', null])).toEqual(['acct_a', 'acct_b', '']);
  });

  it('uses the one shared namespace for every job when the operator shares the cache', async () => {
    expect(await runJobs({ shareCacheAcrossAccounts: true }, ['acct_a', 'acct_b'])).toEqual(['', '']);
  });
});
