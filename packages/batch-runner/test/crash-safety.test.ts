import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/stores/sqlite.js';

const child = fileURLToPath(new URL('./crash-child.mjs', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../dist/index.js', import.meta.url)));

// The child imports the built package, as a user's process would; `pnpm test` builds first.
describe.runIf(built)('crash safety: a 50,000-record job on SQLite survives SIGKILL', () => {
  it('ends with every record exactly once, counters equal to the results, and the webhook delivered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crash-'));
    const db = join(dir, 'jobs.db');
    const receiver = await startWebhookReceiver();
    const secret = 'whsec_crash';
    const start = () =>
      spawn(process.execPath, [child, db, `${receiver.url}/hook`, secret], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
    try {
      let kills = 0;
      while (kills < 6) {
        const process = start();
        const exited = new Promise<number | null>((resolve) => process.on('exit', (code) => resolve(code)));
        const wait = 250 + Math.floor(Math.random() * 500);
        const outcome = await Promise.race([
          exited,
          new Promise<'kill'>((resolve) => setTimeout(() => resolve('kill'), wait)),
        ]);
        if (outcome !== 'kill')
          throw new Error(`the worker exited (code ${outcome}) before it could be killed`);
        process.kill('SIGKILL');
        await exited;
        kills++;
      }
      expect(kills).toBeGreaterThanOrEqual(5);
      const last = start();
      let output = '';
      last.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      expect(await new Promise((resolve) => last.on('exit', resolve))).toBe(0);
      const jobId = output.trim();

      const store = await createSqliteStore({ path: db });
      const job = await store.getJob(jobId);
      expect(job).toMatchObject({ status: 'completed', total: 50_000, processed: 50_000 });
      const seen = new Set<number>();
      let cursor: string | null = null;
      let failed = 0;
      const counts: Record<string, number> = {};
      do {
        const page = await store.results(jobId, { cursor, limit: 5000 });
        for (const result of page.data) {
          expect(seen.has(result.index)).toBe(false);
          seen.add(result.index);
          if (!result.ok) failed++;
          else if (result.countKey) counts[result.countKey] = (counts[result.countKey] ?? 0) + 1;
        }
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen.size).toBe(50_000);
      expect(job?.failed).toBe(failed);
      expect(job?.counts).toEqual(counts);
      await store.close();

      // Delivered at least once, always the same event id, each delivery correctly signed.
      expect(receiver.deliveries.length).toBeGreaterThanOrEqual(1);
      const ids = new Set(
        receiver.deliveries.map((delivery) => {
          const header = String(delivery.headers['x-service-signature']);
          const timestamp = Number(/t=(\d+)/.exec(header)?.[1]);
          return verifyPayload(delivery.body, header, secret, { now: timestamp }).id;
        }),
      );
      expect(ids.size).toBe(1);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});
