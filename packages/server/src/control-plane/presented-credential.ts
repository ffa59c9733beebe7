import { hashSecret } from './secrets.js';

/*
 * How the server handles a credential a request presents (`X-API-Key`), before any store sees
 * it: the per-connection memo of its hash, and the constant-time comparison both the memo and the
 * store lookups use. Kept together because the memo's safety rests on the comparison.
 *
 * Security reasoning:
 *
 * - What is held. A keep-alive client sends the same key with every request, and hashing it
 *   (SHA-256) was the largest part of answering it from the credential cache, so each connection
 *   remembers the last value presented on it and its hash. The plaintext is held in a WeakMap
 *   keyed by the socket: it lives exactly as long as the connection that already carried it, in
 *   the memory of the process that already read it; it is never logged, stored or sent anywhere.
 * - What a hit means. A hit is only an exact match of the whole presented string against the
 *   connection's last one, and it returns the hash of that same string: authentication goes on
 *   exactly as if it had hashed afresh (the credential cache, expiry, revocation and scopes are all
 *   checked after this). A memo never makes a credential valid, it only skips recomputing a hash.
 * - Why the comparison is constant-time. A connection may carry several clients' requests (a
 *   proxy's shared upstream connection): a caller could then present guesses on the connection
 *   that last carried someone else's key. A comparison that stopped at the first differing
 *   character would tell, by its time, how much of the guess matched that key. `safeEqual` looks
 *   at every character whatever the first difference; only a difference in length returns early,
 *   and a key's length is public (its format is documented). A mismatch hashes the new value and
 *   replaces the memo, so alternating clients only lose the saving.
 * - The same comparison checks the hash a store returned for a lookup by hash, as a second guard
 *   on a store that matched loosely (a collation, a prefix index).
 * - Why not `crypto.timingSafeEqual`: it needs two Buffers made from the strings first, which was
 *   most of the cost on this per-request path; an XOR over the UTF-16 code units with no branch
 *   on the characters gives the same property for strings.
 */

/**
 * Compares two strings in time that depends only on their length, so response times do not tell
 * an attacker how much of a guess was right.
 */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The last credential presented on each connection, with its hash (see the reasoning above). */
const presentedOn = new WeakMap<object, { presented: string; hash: string }>();

/** `hashSecret(presented)`, taken from the connection's last credential when it is the same string. */
export function presentedCredentialHash(connection: object, presented: string): string {
  const last = presentedOn.get(connection);
  if (last && safeEqual(last.presented, presented)) return last.hash;
  const hash = hashSecret(presented);
  presentedOn.set(connection, { presented, hash });
  return hash;
}
