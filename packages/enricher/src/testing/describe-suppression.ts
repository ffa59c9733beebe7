/**
 * The conformance suite every SuppressionList passes: SHA-256 hashes only, add (idempotent),
 * has, remove. `create` returns a fresh, empty list.
 */
import { describe, expect, it } from 'vitest';
import { hashIdentifier } from '../privacy/hash.js';
import type { SuppressionList } from '../privacy/suppression.js';

export function describeSuppression(
  name: string,
  create: () => SuppressionList | Promise<SuppressionList>,
): void {
  describe(`suppression conformance: ${name}`, () => {
    const jane = hashIdentifier('email:jane@acme.com');
    const john = hashIdentifier('email:john@acme.com');

    it('holds SHA-256 hex digests only and refuses anything else', async () => {
      const list = await create();
      await expect(list.add('jane@acme.com', 0)).rejects.toThrow('SHA-256');
      await expect(list.add(jane.toUpperCase(), 0)).rejects.toThrow('SHA-256');
      expect(await list.has(jane)).toBe(false);
      await list.close();
    });

    it('has what was added, nothing else; adding twice is harmless', async () => {
      const list = await create();
      await list.add(jane, 1);
      await list.add(jane, 2);
      expect(await list.has(jane)).toBe(true);
      expect(await list.has(john)).toBe(false);
      await list.close();
    });

    it('removes an entry (true when it was there, false after)', async () => {
      const list = await create();
      await list.add(jane, 1);
      await list.add(john, 1);
      expect(await list.remove(jane)).toBe(true);
      expect(await list.remove(jane)).toBe(false);
      expect(await list.has(jane)).toBe(false);
      expect(await list.has(john)).toBe(true);
      await list.close();
    });
  });
}
