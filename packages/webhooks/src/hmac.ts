import { createHmac } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of `<timestamp>.<body bytes>`, keyed with the secret's UTF-8 bytes. */
export function signatureOf(timestamp: number, body: string | Uint8Array, secret: string): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return hmac.digest('hex');
}

/** The secrets as a non-empty list of non-empty strings, or a TypeError naming the problem. */
export function secretList(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0) throw new TypeError('at least one signing secret is needed');
  for (const secret of list) {
    if (typeof secret !== 'string' || secret.length === 0)
      throw new TypeError('signing secrets must be non-empty strings');
  }
  return list;
}
