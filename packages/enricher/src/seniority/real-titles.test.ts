import { readFileSync } from 'node:fs';
import { type Department, type Seniority, splitCsvLine } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { classifySeniority } from './classify.js';

/**
 * Real titles from public occupation lists (ESCO, Brazil's CBO; `test-data/README.md` gives the
 * sources and licences), labelled by hand with a level and a department: `real-titles.csv` is the
 * set the rules were improved on, `real-titles-holdout.csv` was labelled and first run only after
 * the rules were written. Prints accuracy per language and the main confusions; asserts floors set
 * below the measured figures.
 */
interface RealTitle {
  line: number;
  title: string;
  language: string;
  seniority: Seniority;
  department: Department | null;
  owner: boolean;
  source: string;
}

const LEVELS = new Set<string>(['executive', 'vp', 'director', 'manager', 'senior', 'entry', 'intern']);
const DEPARTMENTS = new Set<string>([
  'engineering',
  'sales',
  'marketing',
  'finance',
  'hr',
  'operations',
  'legal',
  'product',
  'design',
  'support',
  'executive',
  'education',
  'health',
  'other',
]);

function readSet(file: string): RealTitle[] {
  const lines = readFileSync(new URL(`../../test-data/${file}`, import.meta.url), 'utf8').split('\n');
  const rows: RealTitle[] = [];
  for (const [index, line] of lines.entries()) {
    if (index === 0 || line === '') continue;
    const [title = '', language = '', seniority = '', department = '', flags = '', source = ''] =
      splitCsvLine(line);
    if (
      title === '' ||
      !LEVELS.has(seniority) ||
      !(department === 'unknown' || DEPARTMENTS.has(department)) ||
      source === ''
    ) {
      throw new Error(`${file} line ${index + 1}: needs title, language, level, department and source`);
    }
    rows.push({
      line: index + 1,
      title,
      language,
      seniority: seniority as Seniority,
      department: department === 'unknown' ? null : (department as Department),
      owner: flags.split('+').includes('owner'),
      source,
    });
  }
  return rows;
}

interface Measured {
  rows: number;
  seniorityRight: number;
  /** Department: answers given (not null), answers right, and rows whose label is not null. */
  departmentAnswered: number;
  departmentRight: number;
  departmentLabelled: number;
}

function measure(file: string): Measured {
  const rows = readSet(file);
  const byLanguage = new Map<string, Measured>();
  const total: Measured = {
    rows: 0,
    seniorityRight: 0,
    departmentAnswered: 0,
    departmentRight: 0,
    departmentLabelled: 0,
  };
  const levelConfusion = new Map<string, number>();
  const departmentConfusion = new Map<string, number>();
  const misses: string[] = [];
  for (const row of rows) {
    const got = classifySeniority(row.title);
    const language = byLanguage.get(row.language) ?? {
      rows: 0,
      seniorityRight: 0,
      departmentAnswered: 0,
      departmentRight: 0,
      departmentLabelled: 0,
    };
    byLanguage.set(row.language, language);
    for (const m of [language, total]) {
      m.rows++;
      if (got.seniority === row.seniority) m.seniorityRight++;
      if (got.department !== null) m.departmentAnswered++;
      if (got.department !== null && got.department === row.department) m.departmentRight++;
      if (row.department !== null) m.departmentLabelled++;
    }
    if (got.seniority !== row.seniority) {
      const key = `${row.seniority} → ${got.seniority}`;
      levelConfusion.set(key, (levelConfusion.get(key) ?? 0) + 1);
    }
    if (got.department !== row.department) {
      const key = `${row.department ?? 'null'} → ${got.department ?? 'null'}`;
      departmentConfusion.set(key, (departmentConfusion.get(key) ?? 0) + 1);
    }
    if (got.seniority !== row.seniority || (got.department !== null && got.department !== row.department)) {
      misses.push(
        `  line ${row.line} [${row.language}] "${row.title}": expected ${row.seniority}/${row.department ?? 'null'}, got ${got.seniority}/${got.department ?? 'null'}`,
      );
    }
  }
  const pct = (a: number, b: number): string => (b === 0 ? '—' : `${((a / b) * 100).toFixed(1)} %`);
  const line = (name: string, m: Measured): string =>
    `  ${name.padEnd(5)} ${String(m.rows).padStart(4)} titles | level ${pct(m.seniorityRight, m.rows)} | ` +
    `department precision ${pct(m.departmentRight, m.departmentAnswered)} (${m.departmentRight}/${m.departmentAnswered}), ` +
    `recall ${pct(m.departmentRight, m.departmentLabelled)}`;
  const top = (confusion: Map<string, number>): string =>
    [...confusion.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([key, count]) => `  ${key}: ${count}`)
      .join('\n');
  console.log(
    `${file}:\n${[...byLanguage.entries()]
      .sort()
      .map(([name, m]) => line(name, m))
      .join('\n')}\n${line('all', total)}\n` +
      `main level confusions (expected → got):\n${top(levelConfusion)}\n` +
      `main department confusions (expected → got):\n${top(departmentConfusion)}\n` +
      `wrong level or wrong department answer:\n${misses.join('\n')}`,
  );
  return total;
}

describe('seniority and department on real titles from public occupation lists', () => {
  it('has at least 500 titles in at least five languages, each with its source', () => {
    const rows = readSet('real-titles.csv');
    expect(rows.length).toBeGreaterThanOrEqual(500);
    expect(new Set(rows.map((row) => row.language)).size).toBeGreaterThanOrEqual(5);
  });

  it('reads the titles the rules were improved on (floors below the measured figures)', () => {
    const m = measure('real-titles.csv');
    expect(m.seniorityRight / m.rows).toBeGreaterThanOrEqual(0.95);
    expect(m.departmentRight / m.departmentAnswered).toBeGreaterThanOrEqual(0.85);
    expect(m.departmentRight / m.departmentLabelled).toBeGreaterThanOrEqual(0.6);
  });

  it('reads the held-out titles, labelled before the rules ever saw them (floors below the measured figures)', () => {
    const m = measure('real-titles-holdout.csv');
    expect(m.rows).toBeGreaterThanOrEqual(200);
    expect(m.seniorityRight / m.rows).toBeGreaterThanOrEqual(0.9);
    expect(m.departmentRight / m.departmentAnswered).toBeGreaterThanOrEqual(0.8);
    expect(m.departmentRight / m.departmentLabelled).toBeGreaterThanOrEqual(0.4);
  });
});
