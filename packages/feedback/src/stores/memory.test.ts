import { describe, expect, it } from 'vitest';
import { describeFeedbackStore, sampleEvent } from '../testing/describe-feedback-store.js';
import { createMemoryFeedbackStore } from './memory.js';

describeFeedbackStore('memory', () => createMemoryFeedbackStore());

describe('memory feedback store specifics', () => {
  it('drops the oldest events beyond maxEvents', async () => {
    const store = createMemoryFeedbackStore({ maxEvents: 2 });
    await store.record('acc', [
      sampleEvent('a@x.example', 'delivered', '2026-11-01T00:00:00.000Z'),
      sampleEvent('b@x.example', 'delivered', '2026-11-01T00:00:00.000Z'),
      sampleEvent('c@x.example', 'delivered', '2026-11-01T00:00:00.000Z'),
    ]);
    expect(await store.summary({ account: 'acc' }, 'a@x.example')).toBeNull();
    expect(await store.summary({ account: 'acc' }, 'c@x.example')).not.toBeNull();
  });
});
