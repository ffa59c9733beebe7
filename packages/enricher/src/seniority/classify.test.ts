import { describe, expect, it } from 'vitest';
import { classifySeniority, type SeniorityClassification } from './classify.js';
import { MAX_TITLE_LENGTH, normaliseTitle } from './normalise.js';

/** A classification's flags when the title names no founder, owner or board member. */
const NO_FLAGS = { founder: false, owner: false, board: false };

describe('classifySeniority', () => {
  it('answers unknown with no flags for a missing, empty or job-less title', () => {
    for (const title of [null, undefined, '', '   ', '---', '42', 'N/A', 'Retired', 'Open to work']) {
      expect(classifySeniority(title)).toEqual({ seniority: 'unknown', department: null, ...NO_FLAGS });
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
      department: 'executive',
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
      department: null,
      ...NO_FLAGS,
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
  it('reads German compounds and gendered forms: -direktor/in, -leiter/in, -meister/in', () => {
    const level = (title: string) => classifySeniority(title).seniority;
    expect(level('Vertriebsdirektor/in')).toBe('director');
    expect(level('Museumsdirektor/Museumsdirektorin')).toBe('director');
    expect(level('Leiter/in Vertrieb')).toBe('director');
    expect(level('Betriebsleiter/Betriebsleiterin')).toBe('manager');
    expect(level('Leiterin eines Zeitungskiosks')).toBe('manager');
    expect(level('Industriemeisterin Behälterbau')).toBe('manager');
    expect(level('Maurermeister/in')).toBe('senior');
    expect(level('Bürgermeisterin')).toBe('executive');
    // -leiter words that lead nothing.
    expect(level('Halbleiterfertiger')).toBe('entry');
    expect(level('Paketumleiterin')).toBe('entry');
  });

  it('reads Portuguese and Italian titles', () => {
    const expected: [string, Partial<SeniorityClassification>][] = [
      ['Diretora de Recursos Humanos', { seniority: 'director', department: 'hr' }],
      ['Mestre de usinagem', { seniority: 'manager', department: 'operations' }],
      ['Estagiário de Engenharia', { seniority: 'intern', department: 'engineering' }],
      ['Conselheiro', { seniority: 'executive', board: true }],
      ['Dirigenti delle risorse umane', { seniority: 'director', department: 'hr' }],
      ['Responsabile Marketing', { seniority: 'manager', department: 'marketing' }],
      ['Amministratore Delegato', { seniority: 'executive', department: 'executive' }],
      ['Stagista', { seniority: 'intern', department: null }],
    ];
    for (const [title, classification] of expected) {
      expect(classifySeniority(title), title).toMatchObject(classification);
    }
  });

  it('reads abbreviations, "head" as a plain word, school and academic titles', () => {
    const expected: [string, Partial<SeniorityClassification>][] = [
      ['Sales Dir.', { seniority: 'director', department: 'sales' }],
      ['Mktg Mgr', { seniority: 'manager', department: 'marketing' }],
      ['Sr. Software Engineer', { seniority: 'senior', department: 'engineering' }],
      ['Jr. Accountant', { seniority: 'entry', department: 'finance' }],
      ['Heads-up display engineer', { seniority: 'entry' }],
      ['Head office administrator', { seniority: 'entry' }],
      ['School Principal', { seniority: 'director', department: 'education' }],
      ['Department Chair, Mathematics', { seniority: 'director', department: 'education', board: false }],
      ['Professor of Economics', { seniority: 'senior' }],
      ['Professora de Matemática', { seniority: 'entry' }],
      ['Trainee Import Manager', { seniority: 'intern' }],
      ['Graduate Export Manager', { seniority: 'entry' }],
    ];
    for (const [title, classification] of expected) {
      expect(classifySeniority(title), title).toMatchObject(classification);
    }
  });

  it('answers the department a title names, and null when it names none (never a guess)', () => {
    const department = (title: string) => classifySeniority(title).department;
    expect(department('Sales Engineer')).toBe('sales');
    expect(department('Product Marketing Manager')).toBe('marketing');
    expect(department('Managing Director, Investment Banking')).toBe('finance');
    expect(department('Geschäftsführer')).toBe('executive');
    expect(department('Vice President')).toBeNull();
    expect(department('Manager')).toBeNull();
    expect(department('Senior Associate')).toBeNull();
    expect(department('Owner')).toBe('executive');
  });
});
