import { describe, expect, it } from 'vitest';
import { readFeedbackCsv } from './csv-import.js';

const read = async (text: string, provider?: string) => {
  const rows = [];
  for await (const row of readFeedbackCsv(text.split('\n'), provider ? { provider } : {})) rows.push(row);
  return rows;
};

describe('readFeedbackCsv', () => {
  it('reads a generic export, maps provider event names, and reports bad rows by line', async () => {
    const rows = await read(
      [
        'email,event,timestamp,reason,bounce_type',
        'Ann@Example.com,delivered,2026-11-01T10:00:00Z,,',
        'bo@example.com,bounce,1793000000,"550 5.1.1 no such user, sorry",Permanent',
        'cy@example.com,bounce,2026-11-01T10:00:00Z,421 try later,Transient',
        'di@example.com,spamreport,2026-11-01T10:00:00Z,,',
        'ed@example.com,open,2026-11-01T10:00:00Z,,',
        'not-an-address,delivered,2026-11-01T10:00:00Z,,',
        'fi@example.com,delivered,last tuesday,,',
      ].join('\n'),
      'sendgrid',
    );
    expect(
      rows.map((row) =>
        'event' in row
          ? [row.line, row.event.kind, row.event.address]
          : [row.line, 'error' in row ? 'error' : 'skipped'],
      ),
    ).toEqual([
      [2, 'delivered', 'ann@example.com'],
      [3, 'hard_bounce', 'bo@example.com'],
      [4, 'soft_bounce', 'cy@example.com'],
      [5, 'complaint', 'di@example.com'],
      [6, 'skipped'],
      [7, 'error'],
      [8, 'error'],
    ]);
    const bounce = rows[1] as { event: { diagnostic: string; provider: string } };
    expect(bounce.event).toMatchObject({ diagnostic: '550 5.1.1 no such user, sorry', provider: 'sendgrid' });
    expect(rows[6]).toMatchObject({ error: expect.stringMatching(/at is not a time/) });
  });

  it('gives a row without an id the same id every time (a second import stores nothing new)', async () => {
    const text = 'address,event,at\nann@example.com,delivered,2026-11-01T10:00:00Z';
    const [first] = await read(text);
    const [second] = await read(text);
    expect((first as { event: { eventId: string } }).event.eventId).toBe(
      (second as { event: { eventId: string } }).event.eventId,
    );
  });

  it('refuses a header without the needed columns, and an empty file', async () => {
    await expect(read('foo,bar\n1,2')).rejects.toThrow(/needs an address column/);
    await expect(read('')).rejects.toThrow(/empty/);
  });
});
