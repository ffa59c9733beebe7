// `pnpm bench enrich-titles`: how many job titles a second the seniority classifier reads, over
// the enricher's hand-labelled set (moved here from a unit test: speed is measured, not asserted).
import { readFileSync } from 'node:fs';
import { splitCsvLine } from '@svc/core';
import { classifySeniority } from '@svc/enricher';
import { type Measurement, measure, printTable } from '../lib/measure.js';

const TITLES_CSV = new URL('../../packages/enricher/test-data/titles.csv', import.meta.url);
const ROUNDS = 50;

/** The titles of the labelled set (the CSV's first column). */
function labelledTitles(): string[] {
  const lines = readFileSync(TITLES_CSV, 'utf8').split('\n').slice(1);
  return lines.filter((line) => line !== '').map((line) => splitCsvLine(line)[0] ?? '');
}

export async function runEnrichTitlesBenchmark(): Promise<Measurement[]> {
  const titles = labelledTitles();
  const rows = [
    await measure('classifySeniority', ROUNDS * titles.length, () => {
      for (let round = 0; round < ROUNDS; round++) for (const title of titles) classifySeniority(title);
    }),
  ];
  printTable(`Seniority classifier, ${titles.length} labelled titles × ${ROUNDS}`, rows, 'classifySeniority');
  return rows;
}
