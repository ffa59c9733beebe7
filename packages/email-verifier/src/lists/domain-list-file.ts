import { readFile } from 'node:fs/promises';
import { normalizeDomainEntry } from './entries.js';

/** One malformed line of a domain list. */
export interface DomainListProblem {
  /** 1-based line number. */
  line: number;
  /** The line's text without its comment. */
  text: string;
  detail: string;
}

/** Thrown when a domain list has malformed lines; `problems` lists every one of them. */
export class DomainListError extends Error {
  readonly problems: readonly DomainListProblem[];

  constructor(source: string, problems: readonly DomainListProblem[]) {
    const shown = problems.slice(0, 10).map((problem) => `  ${source}:${problem.line}: ${problem.detail}`);
    const more = problems.length > 10 ? [`  … and ${problems.length - 10} more`] : [];
    super(
      `${source} has ${problems.length} malformed line${problems.length === 1 ? '' : 's'}:\n${[...shown, ...more].join('\n')}`,
    );
    this.name = 'DomainListError';
    this.problems = problems;
  }
}

/**
 * Parses a domain list: one domain per line, `#` starts a comment, blank lines are skipped,
 * entries are lowercased and IDNs turned into A-labels, duplicates dropped. Every malformed line
 * is reported at once in a DomainListError. `source` names the list in error messages.
 */
export function parseDomainList(text: string, source = 'domain list'): string[] {
  const domains = new Set<string>();
  const problems: DomainListProblem[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const hash = raw.indexOf('#');
    const entry = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (entry === '') continue;
    if (/\s/.test(entry)) {
      problems.push({
        line: i + 1,
        text: entry,
        detail: `"${entry}" holds white space; write one domain per line`,
      });
      continue;
    }
    const result = normalizeDomainEntry(entry);
    if (result.ok) domains.add(result.value);
    else problems.push({ line: i + 1, text: entry, detail: result.detail });
  }
  if (problems.length > 0) throw new DomainListError(source, problems);
  return [...domains];
}

/** Reads a domain list file (see parseDomainList), e.g. to pass as `extraDisposable`. */
export async function loadDomainListFile(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8');
  return parseDomainList(text, path);
}
