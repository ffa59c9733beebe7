import { POSTGRES, serviceUrl } from '@svc/testkit';
import { afterAll, describe } from 'vitest';
import type { Store } from '../../store.js';
import { describeStore } from '../../testing/describe-store.js';
import { scratchSchemas } from '../../testing/postgres-schemas.js';
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
});
