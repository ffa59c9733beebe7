/**
 * schema.org JSON-LD: pulls Organization (and subtypes) and Person nodes out of a page's
 * `application/ld+json` blocks, however they are nested (`@graph`, arrays, `employee`, `worksFor`).
 */

/** A JSON object node. */
export type JsonNode = Record<string, unknown>;

/** What we keep of a schema.org Organization. */
export interface LdOrganization {
  name?: string;
  url?: string;
  /** The node's `@id` (often `https://acme.com/#organization`). */
  id?: string;
  /** The property this node was the value of (`publisher`, `author`, `worksFor`, …); absent at the top level or in `@graph`. */
  via?: string;
  description?: string;
  logo?: string;
  foundingYear?: number;
  employeeCount?: number;
  sameAs: string[];
  location?: string;
  industry?: string;
  email?: string;
}

/** What we keep of a schema.org Person. */
export interface LdPerson {
  name?: string;
  givenName?: string;
  familyName?: string;
  jobTitle?: string;
  email?: string;
  sameAs: string[];
  /** The name of the organisation the person works for, when the node says. */
  worksFor?: string;
}

// Organization subtypes that appear on company sites. Anything ending in Organization, Business,
// Store or Service also counts: LocalBusiness alone has hundreds of subtypes.
const ORG_TYPES = new Set([
  'organization',
  'corporation',
  'localbusiness',
  'onlinebusiness',
  'onlinestore',
  'ngo',
  'consortium',
  'airline',
  'workersunion',
  'librarysystem',
  'fundingscheme',
  'project',
  'researchproject',
  'fundingagency',
  'performinggroup',
  'sportsteam',
  'school',
  'collegeoruniversity',
  'store',
  'restaurant',
  'hotel',
  'legalservice',
  'financialservice',
  'professionalservice',
  'bankorcreditunion',
  'insuranceagency',
]);

function types(node: JsonNode): string[] {
  const raw = node['@type'];
  const list = Array.isArray(raw) ? raw : [raw];
  return list
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^(https?:\/\/)?schema\.org\//i, '').toLowerCase());
}

function isOrganization(node: JsonNode): boolean {
  return types(node).some((t) => ORG_TYPES.has(t) || /(organization|business|store|service)$/.test(t));
}

function isPerson(node: JsonNode): boolean {
  return types(node).includes('person');
}

function isObject(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  if (Array.isArray(value)) return text(value[0]);
  if (typeof value === 'string') {
    const t = value.replace(/\s+/g, ' ').trim();
    return t === '' ? undefined : t;
  }
  if (isObject(value)) return text(value.name ?? value['@value']);
  return undefined;
}

function url(value: unknown): string | undefined {
  if (Array.isArray(value)) return url(value[0]);
  if (typeof value === 'string') return text(value);
  if (isObject(value)) return text(value.url ?? value.contentUrl ?? value['@id']);
  return undefined;
}

function strings(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => url(v)).filter((v): v is string => v !== undefined);
}

/** Reads a year from `foundingDate` ("2009", "2009-04-01", 2009). */
function year(value: unknown): number | undefined {
  const s = typeof value === 'number' ? String(value) : text(value);
  const match = s ? /^(\d{4})/.exec(s) : null;
  if (!match) return undefined;
  const y = Number(match[1]);
  return y >= 1600 && y <= 2100 ? y : undefined;
}

/** Reads `numberOfEmployees`: a number, a string, or a QuantitativeValue (value, or the range's midpoint). */
function employees(value: unknown): number | undefined {
  if (Array.isArray(value)) return employees(value[0]);
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? Math.round(value) : undefined;
  if (typeof value === 'string') {
    const n = Number(value.replace(/[,\s]/g, ''));
    return Number.isFinite(n) && n > 0 ? Math.round(n) : undefined;
  }
  if (isObject(value)) {
    const exact = employees(value.value);
    if (exact !== undefined) return exact;
    const min = employees(value.minValue);
    const max = employees(value.maxValue);
    if (min !== undefined && max !== undefined) return Math.round((min + max) / 2);
    return min ?? max;
  }
  return undefined;
}

function location(value: unknown): string | undefined {
  if (Array.isArray(value)) return location(value[0]);
  if (typeof value === 'string') return text(value);
  if (!isObject(value)) return undefined;
  if (value.address !== undefined) return location(value.address);
  const parts = [value.addressLocality, value.addressRegion, value.addressCountry]
    .map((p) => text(p))
    .filter((p): p is string => p !== undefined);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

function organization(node: JsonNode, via: string | undefined): LdOrganization {
  const id = typeof node['@id'] === 'string' ? text(node['@id']) : undefined;
  return {
    name: text(node.name) ?? text(node.legalName),
    url: url(node.url),
    ...(id !== undefined ? { id } : {}),
    ...(via !== undefined ? { via } : {}),
    description: text(node.description),
    logo: url(node.logo) ?? url(node.image),
    foundingYear: year(node.foundingDate),
    employeeCount: employees(node.numberOfEmployees),
    sameAs: strings(node.sameAs),
    location: location(node.address) ?? location(node.location),
    industry: text(node.industry) ?? text(node.knowsAbout),
    email: text(node.email)?.replace(/^mailto:/i, ''),
  };
}

function person(node: JsonNode, employer?: string): LdPerson {
  return {
    name: text(node.name),
    givenName: text(node.givenName),
    familyName: text(node.familyName),
    jobTitle: text(node.jobTitle),
    email: text(node.email)?.replace(/^mailto:/i, ''),
    sameAs: strings(node.sameAs).concat(strings(node.url)),
    worksFor: text(node.worksFor) ?? employer,
  };
}

/**
 * Organisations and people declared in a page's JSON-LD blocks (malformed blocks are skipped) and
 * in already-parsed nodes of the same shape (microdata items, `extract.ts`).
 */
export function readJsonLd(
  blocks: readonly string[],
  nodes: readonly JsonNode[] = [],
): {
  organizations: LdOrganization[];
  people: LdPerson[];
} {
  const organizations: LdOrganization[] = [];
  const people: LdPerson[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, employer: string | undefined, depth: number, via?: string): void => {
    // Depth bound: a hostile page can nest JSON arbitrarily deep.
    if (depth > 12 || value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) visit(item, employer, depth + 1, via);
      return;
    }
    const node = value as JsonNode;
    let nextEmployer = employer;
    if (isOrganization(node)) {
      const org = organization(node, via);
      organizations.push(org);
      nextEmployer = org.name ?? employer;
    } else if (isPerson(node)) {
      people.push(person(node, employer));
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === '@context') continue;
      visit(child, nextEmployer, depth + 1, key === '@graph' ? undefined : key);
    }
  };
  for (const block of blocks) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(block.trim().replace(/^<!--|-->$/g, ''));
    } catch {
      continue; // many sites ship broken JSON-LD; the rest of the page still counts
    }
    visit(parsed, undefined, 0);
  }
  for (const node of nodes) visit(node, undefined, 0);
  return { organizations, people };
}
