import { createHash } from 'node:crypto';

/**
 * SHA-256 hex of a normalised identifier (`email:jane@acme.com`, `profile_url:https://…`,
 * `name:acme.com:jane doe`, `domain:acme.com`). Only these hashes are stored in the suppression
 * list and as cache subjects, so the list itself does not hold the addresses in clear.
 */
export function hashIdentifier(identifier: string): string {
  return createHash('sha256').update(identifier, 'utf8').digest('hex');
}
