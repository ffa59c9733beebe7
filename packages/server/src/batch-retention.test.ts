import { describe, expect, it } from 'vitest';
import { loadServerConfig } from './config.js';
import { resolveServerOptions } from './options.js';
import { batchRetention } from './serve.js';

const DAY = 86_400_000;

describe('batch retention and sandbox limit settings', () => {
  it('default to 30 days live, 1 day test, a sweep every 10 minutes, 10 sandbox jobs a day and 50,000 records waiting', () => {
    const options = resolveServerOptions();
    expect(options.batch).toEqual({
      sandboxJobsPerDay: 10,
      sandboxRecordsInFlight: 50_000,
      retentionDays: { live: 30, test: 1 },
      sweepIntervalSeconds: 600,
    });
    expect(batchRetention(options, () => {})).toMatchObject({
      liveMs: 30 * DAY,
      sandboxMs: DAY,
      intervalMs: 600_000,
    });
  });

  it('are read from the environment; 0 days keeps that kind forever; a bad value stops the start', async () => {
    const { options } = await loadServerConfig({
      env: {
        SVC_BATCH_RETENTION_DAYS_LIVE: '0',
        SVC_BATCH_RETENTION_DAYS_TEST: '7',
        SVC_BATCH_SWEEP_INTERVAL_SECONDS: '60',
        SVC_BATCH_SANDBOX_JOBS_PER_DAY: '3',
      },
    });
    const resolved = resolveServerOptions(options);
    expect(resolved.batch.sandboxJobsPerDay).toBe(3);
    expect(batchRetention(resolved, () => {})).toMatchObject({
      liveMs: null,
      sandboxMs: 7 * DAY,
      intervalMs: 60_000,
    });
    await expect(loadServerConfig({ env: { SVC_BATCH_RETENTION_DAYS_TEST: '-1' } })).rejects.toThrow(
      /batch\.retentionDays\.test/,
    );
  });
});
