import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { getDomain } from 'tldts';
import { describe, expect, it } from 'vitest';
import type { CompanyFields } from '../../adapter.js';
import { companyCandidate } from './company.js';
import { extractPage } from './extract.js';

/**
 * Per-field precision and recall of the website adapter's company extraction on 165 real pages
 * recorded by other projects' test suites (test-data/company-pages: sources, licences, labels and
 * the matching rules in its README). Labels were written by reading the HTML, not by running this
 * code. Run: `npx vitest run --project enricher company-corpus` (prints the table).
 */

const DIR = fileURLToPath(new URL('../../../test-data/company-pages/', import.meta.url));

interface Source {
  id: string;
  url: string;
  headers?: Record<string, string>;
}
interface Label {
  id: string;
  homepage: boolean;
  names: string[];
  founded: number | null;
  employee_count: number | null;
  language: string | null;
  social: Record<string, string[]>;
}

const sources = JSON.parse(readFileSync(`${DIR}sources.json`, 'utf8')) as Source[];
const labels = new Map(
  (JSON.parse(readFileSync(`${DIR}labels.json`, 'utf8')) as Label[]).map((l) => [l.id, l]),
);

/** Threshold the enricher applies by default: fields below it are dropped from results. */
const THRESHOLD = 0.5;

/** Matching rule for names: letters and digits only, case and accents aside. */
function compact(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** Matching rule for profiles: the account part of the URL, decoded, case aside. */
function handleOf(url: string): string {
  const path = new URL(url).pathname.replace(/\/+$/, '');
  const last = path.split('/').at(-1) ?? '';
  return decodeURIComponent(last).replace(/^@/, '').toLowerCase();
}

interface Tally {
  answered: number;
  correct: number;
  labelled: number;
  found: number;
  wrong: string[];
}
const tally = (): Tally => ({ answered: 0, correct: 0, labelled: 0, found: 0, wrong: [] });

function run() {
  const fields = {
    nameHome: tally(),
    nameOther: tally(),
    founded: tally(),
    employee_count: tally(),
    social: tally(),
    language: tally(),
  };
  let titleNamesOffHome = 0;
  for (const source of sources) {
    const label = labels.get(source.id);
    if (!label) throw new Error(`no label for ${source.id}`);
    const html = gunzipSync(readFileSync(`${DIR}pages/${source.id}.html.gz`)).toString('utf8');
    const hostname = new URL(source.url).hostname;
    const page = extractPage(html, source.url);
    // As the crawler does: the page fetched as the homepage is marked so; others by their URL.
    if (label.homepage) page.kind = 'home';
    const candidate = companyCandidate({
      domain: getDomain(hostname) ?? hostname,
      pages: [page],
      headers: source.headers ?? {},
      cookies: [],
    });
    const kept = <F extends keyof CompanyFields>(field: F): CompanyFields[F] | undefined =>
      (candidate?.fieldConfidence?.[field] ?? 0) >= THRESHOLD ? candidate?.fields[field] : undefined;

    const name = kept('name');
    const nameTally = label.homepage ? fields.nameHome : fields.nameOther;
    if (label.names.length > 0) nameTally.labelled++;
    if (name !== undefined) {
      nameTally.answered++;
      if (label.names.some((n) => compact(n) === compact(name))) {
        nameTally.correct++;
        if (label.names.length > 0) nameTally.found++;
      } else nameTally.wrong.push(`${source.id}: ${name}`);
      if (!label.homepage && candidate?.fieldEvidence?.name?.startsWith('title')) titleNamesOffHome++;
    }

    for (const field of ['founded', 'employee_count'] as const) {
      const value = kept(field);
      const expected = label[field];
      const t = fields[field];
      if (expected !== null) t.labelled++;
      if (value !== undefined) {
        t.answered++;
        if (value === expected) {
          t.correct++;
          t.found++;
        } else t.wrong.push(`${source.id}: ${value} (label ${expected})`);
      }
    }

    const social = kept('social') ?? {};
    for (const [network, handles] of Object.entries(label.social)) {
      if (handles.length > 0) fields.social.labelled++;
      const got = social[network];
      if (got && handles.some((h) => h.toLowerCase() === handleOf(got))) fields.social.found++;
    }
    for (const [network, url] of Object.entries(social)) {
      fields.social.answered++;
      const handles = label.social[network] ?? [];
      if (handles.some((h) => h.toLowerCase() === handleOf(url))) fields.social.correct++;
      else fields.social.wrong.push(`${source.id}: ${url}`);
    }

    const language = kept('language');
    if (label.language !== null) fields.language.labelled++;
    if (language !== undefined) {
      fields.language.answered++;
      if (language === label.language) {
        fields.language.correct++;
        fields.language.found++;
      } else fields.language.wrong.push(`${source.id}: ${language} (label ${label.language})`);
    }
  }
  return { fields, titleNamesOffHome };
}

const ratio = (a: number, b: number) => (b === 0 ? null : a / b);
const percent = (r: number | null) => (r === null ? 'n/a' : `${(r * 100).toFixed(1)} %`);

describe('company extraction on 165 real pages (test-data/company-pages)', () => {
  const { fields, titleNamesOffHome } = run();

  it('reports per-field precision and recall', () => {
    const rows = Object.entries(fields).map(([field, t]) => ({
      field,
      answered: t.answered,
      correct: t.correct,
      precision: percent(ratio(t.correct, t.answered)),
      labelled: t.labelled,
      recall: percent(ratio(t.found, t.labelled)),
    }));
    console.log(`pages: ${sources.length}; title-derived names off the homepage: ${titleNamesOffHome}`);
    console.table(rows);
    for (const [field, t] of Object.entries(fields)) {
      if (t.wrong.length > 0) console.log(`${field} wrong:\n  ${t.wrong.join('\n  ')}`);
    }
    expect(sources.length).toBeGreaterThanOrEqual(150);
  });

  it('meets the goals: names ≥ 95 % precise on homepages, no title becomes a name off the homepage', () => {
    expect(ratio(fields.nameHome.correct, fields.nameHome.answered)).toBeGreaterThanOrEqual(0.95);
    expect(titleNamesOffHome).toBe(0);
  });

  it('meets the goals: founding year and head count ≥ 90 % precise (fewer answers beat wrong ones)', () => {
    for (const t of [fields.founded, fields.employee_count]) {
      expect(t.wrong.length).toBeLessThanOrEqual(Math.floor(t.answered * 0.1));
    }
  });

  it('meets the goals: social profiles ≥ 95 % precise', () => {
    expect(ratio(fields.social.correct, fields.social.answered)).toBeGreaterThanOrEqual(0.95);
  });
});
