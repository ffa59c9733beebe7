import type { AdapterKind, Candidate, FieldsOf } from '../adapter.js';

/** Where a field's value came from (snake_case: it is shown to users in `sources`). */
export interface FieldSource {
  adapter: string;
  /** ISO 8601: when the adapter answered (the cache keeps the original time). */
  retrieved_at: string;
  /** What within the source gave the field, when the adapter says (`og:site_name`, `about page text`). */
  evidence?: string;
}

interface MergedField {
  value: unknown;
  confidence: number;
  source: FieldSource;
}

/** Two independent sources agreeing: the chance both are wrong is the product of each being wrong. */
export function corroborate(a: number, b: number): number {
  return 1 - (1 - a) * (1 - b);
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string')
    return a.trim().toLowerCase() === b.trim().toLowerCase();
  return a === b;
}

/**
 * Per-field waterfall merge. Candidates arrive in adapter priority order. A field takes the first
 * value whose confidence reaches `minConfidence`; until then a more confident value replaces a
 * weaker one. A later source agreeing with the value raises its confidence (corroboration); a
 * disagreeing one never overrides a value already above the threshold — priority decides. Lists
 * (technologies) are unions and maps (social) merge by key, each keeping its first source.
 */
export class FieldMerger<K extends AdapterKind> {
  readonly fields = new Map<string, MergedField>();
  private readonly accepted: number[] = [];

  constructor(private readonly minConfidence: number) {}

  /** Whether a field holds a value at or above the threshold (the waterfall needs no more for it). */
  filled(field: string): boolean {
    return (this.fields.get(field)?.confidence ?? 0) >= this.minConfidence;
  }

  add(candidate: Candidate<K>, adapterSource: FieldSource): void {
    this.accepted.push(candidate.confidence);
    const perField = (candidate.fieldConfidence ?? {}) as Partial<Record<string, number>>;
    const evidence = (candidate.fieldEvidence ?? {}) as Partial<Record<string, string>>;
    for (const [field, value] of Object.entries(candidate.fields as Partial<FieldsOf<K>>)) {
      if (value === undefined || value === null || value === '') continue;
      const confidence = perField[field] ?? candidate.confidence;
      const via = evidence[field];
      const source = via === undefined ? adapterSource : { ...adapterSource, evidence: via };
      const current = this.fields.get(field);
      if (!current) {
        this.fields.set(field, { value: Array.isArray(value) ? [...value] : value, confidence, source });
        continue;
      }
      if (Array.isArray(value) && Array.isArray(current.value)) {
        const seen = new Set((current.value as string[]).map((item) => item.toLowerCase()));
        for (const item of value as string[])
          if (!seen.has(item.toLowerCase())) (current.value as string[]).push(item);
        current.confidence = Math.max(current.confidence, confidence);
      } else if (typeof value === 'object' && typeof current.value === 'object') {
        current.value = { ...(value as object), ...(current.value as object) };
      } else if (same(current.value, value)) {
        current.confidence = corroborate(current.confidence, confidence);
      } else if (current.confidence < this.minConfidence && confidence > current.confidence) {
        this.fields.set(field, { value, confidence, source });
      }
    }
  }

  /**
   * The subject's overall confidence: every accepted candidate passed the identity gate, so each
   * is independent evidence it is the same subject; they combine by corroboration.
   */
  overall(): number {
    return this.accepted.reduce((acc, confidence) => corroborate(acc, confidence), 0);
  }

  /** Fields at or above the threshold, with their sources. */
  result(): { values: Record<string, unknown>; sources: Record<string, FieldSource> } {
    const values: Record<string, unknown> = {};
    const sources: Record<string, FieldSource> = {};
    for (const [field, merged] of this.fields) {
      if (merged.confidence < this.minConfidence) continue;
      values[field] = merged.value;
      sources[field] = merged.source;
    }
    return { values, sources };
  }
}
