import { describe, expect, it } from 'vitest';
import { createPacer } from './pacer.js';

describe('createPacer', () => {
  it('runs one piece at a time and rests restRatio times as long as each took before the next', async () => {
    let clock = 0;
    const rests: Array<[number, () => void]> = [];
    const pacer = createPacer(2, { now: () => clock, after: (ms, then) => rests.push([ms, then]) });
    const log: string[] = [];
    const piece = (name: string, took: number) =>
      pacer.run(async () => {
        log.push(`${name} starts`);
        clock += took;
        return name;
      });
    const a = piece('a', 5);
    const b = piece('b', 3);
    expect(await a).toBe('a');
    // b waits for a's rest (10 ms, twice the 5 it took), which the clock has not given yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['a starts']);
    expect(rests.map(([ms]) => ms)).toEqual([10]);
    rests[0]?.[1]();
    expect(await b).toBe('b');
    expect(log).toEqual(['a starts', 'b starts']);
    expect(rests.map(([ms]) => ms)).toEqual([10, 6]);
  });

  it('rests after a piece that failed too, and passes its error on', async () => {
    const rests: number[] = [];
    let clock = 0;
    const pacer = createPacer(1, {
      now: () => clock,
      after: (ms, then) => {
        rests.push(ms);
        then();
      },
    });
    await expect(
      pacer.run(async () => {
        clock += 4;
        throw new Error('chunk failed');
      }),
    ).rejects.toThrow('chunk failed');
    expect(await pacer.run(async () => 'next')).toBe('next');
    expect(rests).toEqual([4, 0]);
  });
});
