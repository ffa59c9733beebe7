import { POSTGRES, scratchSchemas, serviceUrl } from '@svc/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../store.js';
import { describeStore } from '../../testing/describe-store.js';
import { createPostgresStore } from './store.js';

const url = await serviceUrl(POSTGRES, 'the Postgres batch store conformance suite');

describe.skipIf(!url)('Postgres store', () => {
  const schemas = scratchSchemas(url as string);
  afterAll(() => schemas.drop());
  const schemaOf = new WeakMap<Store, string>();
  // A fresh schema per store: the suite expects an empty store each time.
  describeStore('Postgres', {
    async create() {
      const schema = schemas.next();
      const store = await createPostgresStore({ connectionString: url as string, schema, poolSize: 3 });
      schemaOf.set(store, schema);
      return store;
    },
    async reopen(store) {
      // The first store stays open, as another process would have it.
      return createPostgresStore({ connectionString: url as string, schema: schemaOf.get(store) });
    },
  });

  // A TEXT column cannot hold U+0000; records and results live in JSON, where it is an escape.
  it('keeps records and results with a NUL character, as SQLite does', async () => {
    const store = await createPostgresStore({ connectionString: url as string, schema: schemas.next() });
    const input = 'a\u0000b@example.test';
    await store.createJob({
      id: 'batch_nul',
      type: 'verify_email',
      records: [input],
      webhook_url: null,
      idempotency_key: null,
      request_hash: null,
      chunkSize: 10,
      now: new Date(),
    });
    const lease = await store.claimChunk('w', 1000, 5000);
    expect(lease?.records).toEqual([{ index: 0, input }]);
    const result = { index: 0, input, ok: false, error: { code: 'invalid', message: `bad ${input}` } };
    expect(await store.commitChunk(lease!, [result], 2000)).toBe('committed');
    expect((await store.results('batch_nul', { limit: 10 })).data).toEqual([result]);
    await store.close();
  });
});
