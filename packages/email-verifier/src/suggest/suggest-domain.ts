import { parse } from 'tldts';
import { loadBuiltinLists } from '../lists/builtin.js';
import { isStringArray, isStringRecord, readDataFile } from '../lists/data-files.js';
import { lowerDomain } from '../syntax/char-classes.js';
import { boundedDistance } from './distance.js';

/** A popular domain; `suffix` is everything after the first dot (`yahoo.co.uk` → `co.uk`). */
interface Target {
  domain: string;
  suffix: string;
  /** Position in the popularity ranking; on equal edits the more popular target wins. */
  rank: number;
}

/** The popular domains sharing one name (`yahoo.com`, `yahoo.fr`, …), so its distance is computed once. */
interface NameGroup {
  name: string;
  /** Edits allowed in the name: short names get none, so `bol.com` never becomes `aol.com`. */
  budget: number;
  /** characterMask(name) */
  mask: number;
  targets: Target[];
}

interface SuggestData {
  /** Name groups indexed by the length of the name. */
  byNameLength: NameGroup[][];
  /** Domains that are real providers themselves and so never get a suggestion. */
  known: ReadonlySet<string>;
  tldTypos: ReadonlyMap<string, string>;
}

/** The largest nameEditBudget. */
const MAX_NAME_BUDGET = 2;
/** Most edits in total (name plus suffix) a suggestion may be away from what was typed. */
const MAX_TOTAL_EDITS = 2;
/** A real TLD is swapped only for these: `gmail.co` → `gmail.com`, but `yahoo.dk` stays. */
const SWAP_TARGET_SUFFIXES: ReadonlySet<string> = new Set(['com', 'net', 'org']);
/** Shortest name whose real TLD may be swapped (`me.co` may well be a real company). */
const MIN_NAME_FOR_TLD_SWAP = 5;
const CACHE_LIMIT = 10_000;

let data: SuggestData | undefined;
// Batches repeat domains heavily; a bounded memo makes the repeat cost one Map lookup.
const cache = new Map<string, string | null>();

/** Edits allowed in a name of this length (Damerau-Levenshtein, transpositions count 1). */
export function nameEditBudget(length: number): number {
  return length <= 4 ? 0 : length <= 7 ? 1 : 2;
}

/**
 * A likely intended provider domain for a misspelt one (`gmial.com` → `gmail.com`,
 * `gmail.co` → `gmail.com`, `mycompany.con` → `mycompany.com`), or null when the domain is a
 * known provider or nothing is close enough. Expects an ASCII (A-label) domain.
 */
export function suggestDomain(domain: string): string | null {
  const lower = lowerDomain(domain);
  const cached = cache.get(lower);
  if (cached !== undefined) return cached;
  const suggestion = computeSuggestion(lower, loadSuggestData());
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(lower, suggestion);
  return suggestion;
}

function computeSuggestion(domain: string, { byNameLength, known, tldTypos }: SuggestData): string | null {
  if (known.has(domain)) return null;
  const dot = domain.indexOf('.');
  if (dot <= 0 || dot === domain.length - 1) return null;
  const suffixLength = domain.length - dot - 1;
  const nameMask = characterMask(domain, dot);
  let name: string | undefined;
  let suffix: string | undefined;
  let best: Target | null = null;
  let bestEdits = MAX_TOTAL_EDITS + 1;
  let suffixIsReal: boolean | undefined;
  // Only names within two characters of this one's length can be within budget.
  const lastLength = Math.min(dot + MAX_NAME_BUDGET, byNameLength.length - 1);
  for (let length = Math.max(1, dot - MAX_NAME_BUDGET); length <= lastLength; length++) {
    for (const group of byNameLength[length] as NameGroup[]) {
      const budget = group.budget;
      if (Math.abs(dot - length) > budget) continue;
      // Every character present in one name and absent from the other costs at least one edit: a
      // lower bound in O(1) that rules out nearly every unrelated name before any distance is computed.
      if (popcount(nameMask & ~group.mask) > budget || popcount(group.mask & ~nameMask) > budget) continue;
      name ??= domain.slice(0, dot);
      const nameEdits = name === group.name ? 0 : boundedDistance(name, group.name, budget);
      if (nameEdits > budget) continue;
      suffix ??= domain.slice(dot + 1);
      for (const target of group.targets) {
        if (Math.abs(suffixLength - target.suffix.length) > 1) continue;
        const suffixEdits = suffix === target.suffix ? 0 : boundedDistance(suffix, target.suffix, 1);
        const edits = nameEdits + suffixEdits;
        if (suffixEdits > 1 || edits === 0 || edits > bestEdits) continue;
        if (edits === bestEdits && best !== null && best.rank < target.rank) continue;
        if (suffixEdits === 1) {
          suffixIsReal ??= isRealSuffix(suffix);
          if (suffixIsReal && !(SWAP_TARGET_SUFFIXES.has(target.suffix) && dot >= MIN_NAME_FOR_TLD_SWAP))
            continue;
        }
        best = target;
        bestEdits = edits;
      }
    }
  }
  if (best !== null) return best.domain;

  const lastDot = domain.lastIndexOf('.');
  const fixedTld = tldTypos.get(domain.slice(lastDot + 1));
  return fixedTld === undefined ? null : `${domain.slice(0, lastDot + 1)}${fixedTld}`;
}

/**
 * A 32-bit set of the characters in `text` (up to `end`): one bit per letter, digits folded onto four bits,
 * one bit for `-` and one for anything else. Folding only ever hides a difference, so the count of
 * bits one mask has and the other lacks stays a lower bound of the edit distance.
 */
export function characterMask(text: string, end = text.length): number {
  let mask = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) mask |= 1 << (c - 0x61);
    else if (c >= 0x30 && c <= 0x39) mask |= 1 << (26 + (c % 4));
    else if (c === 0x2d) mask |= 1 << 30;
    else mask |= 1 << 31;
  }
  return mask;
}

function popcount(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

function isRealSuffix(suffix: string): boolean {
  return parse(suffix, { extractHostname: false, validateHostname: false, detectIp: false }).isIcann === true;
}

function loadSuggestData(): SuggestData {
  if (data !== undefined) return data;
  const popular = readDataFile('popular-domains.json', isStringArray).map((entry) => entry.toLowerCase());
  const byNameLength: NameGroup[][] = [];
  const groups = new Map<string, NameGroup>();
  popular.forEach((domain, rank) => {
    const dot = domain.indexOf('.');
    const name = domain.slice(0, dot);
    let group = groups.get(name);
    if (group === undefined) {
      group = { name, budget: nameEditBudget(name.length), mask: characterMask(name), targets: [] };
      groups.set(name, group);
      for (let length = byNameLength.length; length <= name.length; length++) byNameLength.push([]);
      (byNameLength[name.length] as NameGroup[]).push(group);
    }
    group.targets.push({ domain, suffix: domain.slice(dot + 1), rank });
  });
  const known = new Set([...popular, ...loadBuiltinLists().free]);
  const tldTypos = new Map(Object.entries(readDataFile('tld-typos.json', isStringRecord)));
  data = { byNameLength, known, tldTypos };
  return data;
}
