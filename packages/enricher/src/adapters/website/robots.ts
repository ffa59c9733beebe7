/**
 * robots.txt (RFC 9309), our own small parser: the group for our product token (else `*`),
 * Allow/Disallow with `*` and `$`, the longest match wins and Allow wins a tie.
 */

interface Rule {
  allow: boolean;
  pattern: string;
  regex: RegExp;
}

/** The rules of one robots.txt for one user agent. */
export interface RobotsRules {
  /** Whether `path` (path and query, starting with `/`) may be fetched. */
  isAllowed(path: string): boolean;
}

/** Allows everything: a missing robots.txt (4xx). */
export const ALLOW_ALL: RobotsRules = { isAllowed: () => true };

function compile(pattern: string): RegExp {
  let source = '^';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') source += '.*';
    else if (ch === '$' && i === pattern.length - 1) source += '$';
    else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(source);
}

/** Percent-encodes what needs it and upper-cases existing escapes, so patterns and paths compare alike. */
function normalisePath(path: string): string {
  return path
    .replace(/%[0-9a-f]{2}/gi, (m) => m.toUpperCase())
    .replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
}

/**
 * Parses `text` for `productToken` (case-insensitive, e.g. `svc-enricher`). Groups are runs of
 * user-agent lines followed by rules; several groups naming us are merged, as the RFC says.
 */
export function parseRobots(text: string, productToken: string): RobotsRules {
  const token = productToken.toLowerCase();
  const groups: Array<{ agents: string[]; rules: Rule[] }> = [];
  let current: { agents: string[]; rules: Rule[] } | null = null;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
    } else if (key === 'allow' || key === 'disallow') {
      lastWasAgent = false;
      // An empty Disallow allows everything: it adds no rule.
      if (!current || value === '') continue;
      const pattern = normalisePath(value);
      current.rules.push({ allow: key === 'allow', pattern, regex: compile(pattern) });
    } else {
      // Sitemap, Crawl-delay and unknown keys neither start nor end a group.
    }
  }
  const ours = groups.filter((g) => g.agents.includes(token));
  const chosen = ours.length > 0 ? ours : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  if (rules.length === 0) return ALLOW_ALL;
  return {
    isAllowed(path) {
      const target = normalisePath(path === '' ? '/' : path);
      let best: Rule | null = null;
      for (const rule of rules) {
        if (!rule.regex.test(target)) continue;
        if (
          !best ||
          rule.pattern.length > best.pattern.length ||
          (rule.pattern.length === best.pattern.length && rule.allow)
        ) {
          best = rule;
        }
      }
      return best ? best.allow : true;
    },
  };
}
