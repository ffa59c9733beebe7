import { describe, expect, it } from 'vitest';
import { classifySeniority } from './classify.js';
import { MAX_TITLE_LENGTH, normaliseTitle } from './normalise.js';

describe('classifySeniority', () => {
  it('answers unknown with no flags for a missing, empty or job-less title', () => {
    for (const title of [null, undefined, '', '   ', '---', '42', 'N/A', 'Retired', 'Open to work']) {
      expect(classifySeniority(title)).toEqual({
        seniority: 'unknown',
        department: null,
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
    expect(classifySeniority('Diretora de Recursos Humanos')).toMatchObject({
      seniority: 'director',
      department: 'hr',
    });
    expect(classifySeniority('Mestre de usinagem')).toMatchObject({
      seniority: 'manager',
      department: 'operations',
    });
    expect(classifySeniority('Estagiário de Engenharia')).toMatchObject({
      seniority: 'intern',
      department: 'engineering',
    });
    expect(classifySeniority('Conselheiro')).toMatchObject({ seniority: 'executive', board: true });
    expect(classifySeniority('Dirigenti delle risorse umane')).toMatchObject({
      seniority: 'director',
      department: 'hr',
    });
    expect(classifySeniority('Responsabile Marketing')).toMatchObject({
      seniority: 'manager',
      department: 'marketing',
    });
    expect(classifySeniority('Amministratore Delegato')).toMatchObject({
      seniority: 'executive',
      department: 'executive',
    });
    expect(classifySeniority('Stagista')).toMatchObject({ seniority: 'intern', department: null });
  });

  it('reads abbreviations, "head" as a plain word, school and academic titles', () => {
    expect(classifySeniority('Sales Dir.')).toMatchObject({ seniority: 'director', department: 'sales' });
    expect(classifySeniority('Mktg Mgr')).toMatchObject({ seniority: 'manager', department: 'marketing' });
    expect(classifySeniority('Sr. Software Engineer')).toMatchObject({
      seniority: 'senior',
      department: 'engineering',
    });
    expect(classifySeniority('Jr. Accountant')).toMatchObject({ seniority: 'entry', department: 'finance' });
    expect(classifySeniority('Heads-up display engineer').seniority).toBe('entry');
    expect(classifySeniority('Head office administrator').seniority).toBe('entry');
    expect(classifySeniority('School Principal')).toMatchObject({
      seniority: 'director',
      department: 'education',
    });
    expect(classifySeniority('Department Chair, Mathematics')).toMatchObject({
      seniority: 'director',
      department: 'education',
      board: false,
    });
    expect(classifySeniority('Professor of Economics').seniority).toBe('senior');
    expect(classifySeniority('Professora de Matemática').seniority).toBe('entry');
    expect(classifySeniority('Trainee Import Manager').seniority).toBe('intern');
    expect(classifySeniority('Graduate Export Manager').seniority).toBe('entry');
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
