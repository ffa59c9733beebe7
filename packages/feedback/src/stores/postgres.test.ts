import { POSTGRES, scratchSchemas, serviceUrl } from '@svc/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { describeFeedbackStore, sampleEvent } from '../testing/describe-feedback-store.js';
import { createPostgresFeedbackStore } from './postgres.js';

const url = await serviceUrl(POSTGRES, 'the PostgreSQL feedback store conformance suite');

describe.skipIf(!url)('PostgreSQL feedback store', () => {
  // Each store gets a schema of its own (tests run in parallel on one server), dropped at the end.
  const schemas = scratchSchemas(url as string, 'svc_fb');
  afterAll(() => schemas.drop());

  describeFeedbackStore('postgres', () =>
    createPostgresFeedbackStore({ connectionString: url as string, schema: schemas.next(), poolSize: 2 }),
  );

  it('two stores on one schema (two machines) see each other, lose no event of one address, and erase for both', async () => {
    const schema = schemas.next();
    const [first, second] = await Promise.all([
      createPostgresFeedbackStore({ connectionString: url as string, schema, poolSize: 2 }),
      createPostgresFeedbackStore({ connectionString: url as string, schema, poolSize: 2 }),
    ]);
    try {
      // Twenty events of one address written at once through both: the summary counts all.
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? first : second).record('acc', [
            sampleEvent('race@x.example', 'delivered', `2026-11-01T00:00:${String(i).padStart(2, '0')}.000Z`),
          ]),
        ),
      );
      expect((await first.summary({ account: 'acc' }, 'race@x.example'))?.events).toBe(20);
      expect(await second.erase('acc', 'race@x.example')).toBe(20);
      expect(await first.summary({ account: 'acc' }, 'race@x.example')).toBeNull();
    } finally {
      await first.close();
      await second.close();
    }
  });
});
