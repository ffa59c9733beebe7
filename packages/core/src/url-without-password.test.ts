import { describe, expect, it } from 'vitest';
import { urlWithoutPassword } from './url-without-password.js';

describe('urlWithoutPassword', () => {
  it('replaces the password and keeps the rest', () => {
    expect(urlWithoutPassword('postgres://svc:s3cret@db.internal:5432/svc')).toBe(
      'postgres://svc:***@db.internal:5432/svc',
    );
    expect(urlWithoutPassword('redis://:hunter2@127.0.0.1:6379/2')).toBe('redis://:***@127.0.0.1:6379/2');
    expect(urlWithoutPassword('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('never echoes what is not a URL', () => {
    expect(urlWithoutPassword('hunter2')).toBe('(an unparsable URL)');
    expect(urlWithoutPassword('hunter2', '(an unparsable connection string)')).toBe(
      '(an unparsable connection string)',
    );
  });
});
