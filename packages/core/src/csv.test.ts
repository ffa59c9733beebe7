import { expect, it } from 'vitest';
import { csvField, flatten } from './csv.js';

it('flattens nested results into dot-separated columns, arrays joined with ;', () => {
  expect(
    flatten({
      email: 'a@x.test',
      mx: { accepts_mail: true, records: ['mx1.x.test', 'mx2.x.test'] },
      smtp: null,
      score: 0.5,
      list: [{ a: 1 }],
    }),
  ).toEqual({
    email: 'a@x.test',
    'mx.accepts_mail': 'true',
    'mx.records': 'mx1.x.test;mx2.x.test',
    smtp: '',
    score: '0.5',
    list: '{"a":1}',
  });
  expect(flatten({ city: 'London' }, 'result')).toEqual({ 'result.city': 'London' });
});

it('quotes a CSV field only when it must (RFC 4180)', () => {
  expect(csvField('plain')).toBe('plain');
  expect(csvField('a,b')).toBe('"a,b"');
  expect(csvField('say "hi"')).toBe('"say ""hi"""');
  expect(csvField('two\nlines')).toBe('"two\nlines"');
});
