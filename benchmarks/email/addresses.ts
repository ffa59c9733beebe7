import { seeded } from '../lib/measure.js';

/** How a generated address was meant to look; the benchmark prints the mix it measured. */
export type AddressKind = 'valid' | 'free' | 'disposable' | 'role' | 'typo' | 'invalid';

/** Share of each kind in the mix (sums to 1). */
export const ADDRESS_MIX: Readonly<Record<AddressKind, number>> = {
  valid: 0.48,
  free: 0.3,
  disposable: 0.05,
  role: 0.06,
  typo: 0.05,
  invalid: 0.06,
};

const FREE = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'icloud.com',
  'aol.com',
  'gmx.de',
  'web.de',
  'yahoo.co.uk',
  'live.com',
  'mail.ru',
  'yandex.ru',
  'orange.fr',
  'protonmail.com',
];
const DISPOSABLE = [
  'mailinator.com',
  'guerrillamail.com',
  'yopmail.com',
  '10minutemail.com',
  'sharklasers.com',
  'trashmail.com',
  'tempmail.net',
  'dispostable.com',
];
const TYPOS = [
  'gmial.com',
  'gmail.con',
  'gamil.com',
  'yaho.com',
  'yahooo.com',
  'hotmial.com',
  'hotmail.co',
  'outlok.com',
  'iclod.com',
  'gmail.cm',
  'yahoo.cmo',
];
const ROLES = ['info', 'support', 'sales', 'admin', 'contact', 'billing', 'noreply', 'office', 'hr', 'jobs'];
const FIRST = [
  'james',
  'mary',
  'john',
  'patricia',
  'robert',
  'jennifer',
  'michael',
  'linda',
  'david',
  'elizabeth',
  'william',
  'barbara',
  'richard',
  'susan',
  'joseph',
  'jessica',
  'thomas',
  'sarah',
  'chen',
  'aiko',
  'olga',
  'mehmet',
  'fatima',
  'lucas',
  'sofia',
  'noah',
  'emma',
  'mateo',
];
const LAST = [
  'smith',
  'johnson',
  'williams',
  'brown',
  'jones',
  'garcia',
  'miller',
  'davis',
  'rodriguez',
  'martinez',
  'hernandez',
  'lopez',
  'wilson',
  'anderson',
  'taylor',
  'moore',
  'jackson',
  'martin',
  'lee',
  'schmidt',
  'muller',
  'rossi',
  'tanaka',
  'kowalski',
];
const SYLLABLES = [
  'ac',
  'me',
  'tech',
  'soft',
  'ly',
  'data',
  'net',
  'ware',
  'co',
  'lab',
  'ix',
  'on',
  'go',
  'ra',
];
const TLDS = ['com', 'com', 'com', 'net', 'org', 'io', 'de', 'co.uk', 'fr', 'com.au', 'nl', 'ca', 'app'];
const INVALID = [
  (local: string, domain: string) => `${local}${domain}`, // no @
  (local: string, domain: string) => `${local}@@${domain}`,
  (local: string, domain: string) => `${local}..x@${domain}`,
  (local: string, domain: string) => `.${local}@${domain}`,
  (local: string, domain: string) => `${local} x@${domain}`,
  (local: string) => `${local}@localhost`,
  (local: string, domain: string) => `${local}@${domain}.`,
  (local: string, domain: string) => `${local}@-${domain}`,
  (local: string, domain: string) => `${local}@${domain.replace('.', '..')}`,
  (_local: string, domain: string) => `@${domain}`,
  (local: string) => `${local}@`,
  (local: string, domain: string) => `${local}(comment)@${domain}`,
];

const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;

/**
 * `count` deterministic addresses in the ADDRESS_MIX proportions. Company domains come from a pool
 * of `companyDomains` names drawn with Zipf popularity (s = 1), so a few recur often and most are
 * rare, as in real lists.
 */
export function generateAddresses(count: number, seed = 7, companyDomains = 50_000): string[] {
  const random = seeded(seed);
  const companies = Array.from({ length: companyDomains }, (_, index) => {
    const name = `${pick(random, SYLLABLES)}${pick(random, SYLLABLES)}${random() < 0.3 ? index : ''}`;
    return `${random() < 0.08 ? 'mail.' : ''}${name}.${pick(random, TLDS)}`;
  });
  const cumulative = new Float64Array(companyDomains);
  let total = 0;
  for (let rank = 0; rank < companyDomains; rank++) {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  }
  const company = () => {
    const target = random() * total;
    let low = 0;
    let high = companyDomains - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return companies[low] as string;
  };
  const person = () => {
    const first = pick(random, FIRST);
    const last = pick(random, LAST);
    const style = random();
    if (style < 0.4) return `${first}.${last}`;
    if (style < 0.6) return `${first}${last}${Math.floor(random() * 100)}`;
    if (style < 0.75) return `${first[0]}${last}`;
    if (style < 0.85) return `${first}_${last}`;
    if (style < 0.93) return `${first}+news${Math.floor(random() * 10)}`;
    return `${first.toUpperCase()}.${last}`;
  };

  const thresholds = Object.entries(ADDRESS_MIX) as Array<[AddressKind, number]>;
  const out = new Array<string>(count);
  for (let index = 0; index < count; index++) {
    let roll = random();
    let kind: AddressKind = 'valid';
    for (const [name, share] of thresholds) {
      kind = name;
      if (roll < share) break;
      roll -= share;
    }
    switch (kind) {
      case 'valid':
        out[index] = `${person()}@${company()}`;
        break;
      case 'free':
        out[index] = `${person()}@${pick(random, FREE)}`;
        break;
      case 'disposable':
        out[index] =
          `${person()}@${random() < 0.1 ? `x${Math.floor(random() * 50)}.` : ''}${pick(random, DISPOSABLE)}`;
        break;
      case 'role':
        out[index] = `${pick(random, ROLES)}@${random() < 0.7 ? company() : pick(random, FREE)}`;
        break;
      case 'typo':
        out[index] = `${person()}@${pick(random, TYPOS)}`;
        break;
      case 'invalid':
        out[index] = pick(random, INVALID)(person(), company());
        break;
    }
  }
  return out;
}
