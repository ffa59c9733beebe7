import { describe, expect, it } from 'vitest';
import { localPartPattern, wilsonInterval } from './pattern.js';

describe('localPartPattern', () => {
  it.each([
    ['jane.doe@x.example', 'first.last'],
    ['j.doe@x.example', 'f.last'],
    ['jane.d@x.example', 'first.l'],
    ['jane_doe@x.example', 'first_last'],
    ['jane-doe@x.example', 'first-last'],
    ['janedoe@x.example', 'word'],
    ['j@x.example', 'initial'],
    ['jane.doe2@x.example', 'with_digits'],
    ['jane.m.doe@x.example', 'three_part'],
    ['jane.doe+news@x.example', 'first.last'],
    ['jane..doe@x.example', 'other'],
    ['josé.garcía@x.example', 'first.last'],
  ])('%s → %s', (address, pattern) => {
    expect(localPartPattern(address)).toBe(pattern);
  });
});

describe('wilsonInterval', () => {
  it('is wide on little evidence and narrow on much', () => {
    const few = wilsonInterval(3, 0);
    const many = wilsonInterval(300, 0);
    expect(few.low).toBeLessThan(0.5);
    expect(many.low).toBeGreaterThan(0.98);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});
