import { describe, expect, it } from 'vitest';
import { presentedCredentialHash, safeEqual } from './presented-credential.js';
import { generateApiKey, hashSecret } from './secrets.js';

describe('safeEqual', () => {
  it('is true only for equal strings, wherever the difference is', () => {
    const hash = hashSecret(generateApiKey('live'));
    expect(safeEqual(hash, hash)).toBe(true);
    const flipped = `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`;
    expect(safeEqual(hash, flipped)).toBe(false);
    expect(safeEqual(hash, hash.slice(1))).toBe(false);
    // A difference anywhere counts: first, middle, last character; beyond ASCII too.
    expect(safeEqual(`x${hash.slice(1)}`, hash)).toBe(false);
    expect(safeEqual(`${hash.slice(0, 30)}x${hash.slice(31)}`, hash)).toBe(false);
    expect(safeEqual('sk_live_é€😀', 'sk_live_é€😀')).toBe(true);
    expect(safeEqual('sk_live_é€😀', 'sk_live_é€😁')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });
});

describe('presentedCredentialHash', () => {
  it("is the presented value's hash, whatever the connection presented before", () => {
    const connection = {};
    const first = generateApiKey('live');
    const second = generateApiKey('live');
    expect(presentedCredentialHash(connection, first)).toBe(hashSecret(first));
    expect(presentedCredentialHash(connection, first)).toBe(hashSecret(first));
    // Another client's key on the same connection (a proxy's shared upstream connection).
    expect(presentedCredentialHash(connection, second)).toBe(hashSecret(second));
    // One character off the last key: its own hash, never the remembered one.
    const near = `${second.slice(0, -1)}${second.endsWith('a') ? 'b' : 'a'}`;
    expect(presentedCredentialHash(connection, near)).toBe(hashSecret(near));
    expect(presentedCredentialHash({}, first)).toBe(hashSecret(first));
  });
});
