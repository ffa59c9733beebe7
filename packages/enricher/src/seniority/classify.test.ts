import { describe, expect, it } from 'vitest';
import { classifySeniority } from './classify.js';
import { MAX_TITLE_LENGTH, normaliseTitle } from './normalise.js';

describe('classifySeniority', () => {
  it('answers unknown with no flags for a missing, empty or job-less title', () => {
    for (const title of [null, undefined, '', '   ', '---', '42', 'N/A', 'Retired', 'Open to work']) {
      expect(classifySeniority(title)).toEqual({
        seniority: 'unknown',
        founder: false,
        owner: false,
        board: false,
      });
    }
  });

  it('rejects a title that is not a string with a clear error', () => {
    expect(() => classifySeniority(42 as unknown as string)).toThrow(
      'classifySeniority: title must be a string, null or undefined, got number',
    );
  });

  it('sets founder, owner and board flags independently of the level', () => {
    expect(classifySeniority('Owner & Founder')).toEqual({
      seniority: 'executive',
      founder: true,
      owner: true,
      board: false,
    });
    expect(classifySeniority('Chairman & CEO')).toMatchObject({
      seniority: 'executive',
      board: true,
      founder: false,
    });
    expect(classifySeniority('Geschäftsführende Gesellschafterin')).toMatchObject({
      seniority: 'executive',
      owner: true,
    });
  });

  it('drops whom a support role supports: an assistant to the founder is not a founder', () => {
    expect(classifySeniority('Executive Assistant to the Founder & CEO')).toEqual({
      seniority: 'entry',
      founder: false,
      owner: false,
      board: false,
    });
    expect(classifySeniority('Chief of Staff to the Chairman')).toMatchObject({
      seniority: 'director',
      board: false,
    });
  });

  it('reads ASCII spellings of accented words and dotted acronyms', () => {
    expect(normaliseTitle('Vice-Président, S.V.P.')).toBe(' vice president svp ');
    expect(classifySeniority('Geschaeftsfuehrerin').seniority).toBe('executive');
    expect(classifySeniority('Directeur General').seniority).toBe('executive');
  });

  it('looks only at the first MAX_TITLE_LENGTH characters, so a huge input stays cheap', () => {
    const huge = `Software Engineer ${'x'.repeat(100_000)} CEO`;
    // The CEO past the cut is never read: the title is an engineer's (no timing asserted).
    expect(classifySeniority(huge).seniority).toBe('entry');
    expect(normaliseTitle(huge).length).toBeLessThanOrEqual(MAX_TITLE_LENGTH + 2);
  });
});
