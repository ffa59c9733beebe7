import { readFileSync } from 'node:fs';
import { type Seniority, splitCsvLine } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { classifySeniority, type SeniorityClassification } from './classify.js';

/** The hand-labelled titles (EN/DE/FR/ES): title, expected seniority, expected flags joined with "+". */
const CSV_PATH = new URL('../../test-data/titles.csv', import.meta.url);

interface LabelledTitle {
  line: number;
  title: string;
  /** Level and flags (the department is measured on the real titles, `real-titles.test.ts`). */
  expected: LevelAndFlags;
}

type LevelAndFlags = Omit<SeniorityClassification, 'department'>;

const LEVELS: readonly Seniority[] = [
  'executive',
  'vp',
  'director',
  'manager',
  'senior',
  'entry',
  'intern',
  'unknown',
];

function readLabelledSet(): LabelledTitle[] {
  const lines = readFileSync(CSV_PATH, 'utf8').split('\n');
  const rows: LabelledTitle[] = [];
  for (const [index, line] of lines.entries()) {
    if (index === 0 || line === '') continue;
    const [title = '', seniority = '', flags = ''] = splitCsvLine(line);
    if (title === '' || !LEVELS.includes(seniority as Seniority)) {
      throw new Error(`titles.csv line ${index + 1}: needs a title and a level, got "${line}"`);
    }
    const flagSet = new Set(flags.split('+').filter(Boolean));
    rows.push({
      line: index + 1,
      title,
      expected: {
        seniority: seniority as Seniority,
        founder: flagSet.has('founder'),
        owner: flagSet.has('owner'),
        board: flagSet.has('board'),
      },
    });
  }
  return rows;
}

const same = (a: LevelAndFlags, b: LevelAndFlags): boolean =>
  a.seniority === b.seniority && a.founder === b.founder && a.owner === b.owner && a.board === b.board;

const describeFlags = (c: LevelAndFlags): string =>
  [c.seniority, c.founder && 'founder', c.owner && 'owner', c.board && 'board'].filter(Boolean).join('+');

describe('seniority classifier on the labelled set', () => {
  const rows = readLabelledSet();

  it('has at least 300 titles, every level, all three flags and the hard cases', () => {
    expect(rows.length).toBeGreaterThanOrEqual(300);
    for (const level of LEVELS) expect(rows.some((row) => row.expected.seniority === level)).toBe(true);
    for (const flag of ['founder', 'owner', 'board'] as const)
      expect(rows.some((row) => row.expected[flag])).toBe(true);
    const titles = new Set(rows.map((row) => row.title));
    for (const hard of [
      'Account Executive',
      'Executive Assistant',
      'Staff Engineer',
      'Geschäftsführer',
      'Directeur général',
    ]) {
      expect(titles.has(hard)).toBe(true);
    }
  });

  it('classifies at least 95 % of them exactly (level and flags), printing the confusion and the misses', () => {
    const confusion = new Map<string, number>();
    const misses: string[] = [];
    for (const row of rows) {
      const actual = classifySeniority(row.title);
      const key = `${row.expected.seniority} → ${actual.seniority}`;
      confusion.set(key, (confusion.get(key) ?? 0) + 1);
      if (!same(actual, row.expected)) {
        misses.push(
          `  line ${row.line}: "${row.title}" expected ${describeFlags(row.expected)}, got ${describeFlags(actual)}`,
        );
      }
    }
    const accuracy = (rows.length - misses.length) / rows.length;
    const matrix = [...confusion.entries()]
      .filter(([key]) => key.split(' → ')[0] !== key.split(' → ')[1])
      .map(([key, count]) => `  ${key}: ${count}`);
    console.log(
      `seniority: ${rows.length - misses.length}/${rows.length} exact (${(accuracy * 100).toFixed(1)} %)\n` +
        `confusion (expected → got, off-diagonal):\n${matrix.join('\n') || '  none'}\n` +
        `misclassified:\n${misses.join('\n') || '  none'}`,
    );
    expect(accuracy).toBeGreaterThanOrEqual(0.95);
  });
});
