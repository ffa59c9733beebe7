import { describe, expect, it } from 'vitest';
import { parseRobots } from './robots.js';

describe('parseRobots (RFC 9309)', () => {
  const text = `# comment
User-agent: *
Disallow: /private
Allow: /private/press
Disallow: /*.pdf$

User-agent: svc-enricher
User-agent: otherbot
Disallow: /team
Allow: /team/public
`;

  it('uses our group when one names us, else the * group', () => {
    const ours = parseRobots(text, 'svc-enricher');
    expect(ours.isAllowed('/team')).toBe(false);
    expect(ours.isAllowed('/team/public/x')).toBe(true);
    expect(ours.isAllowed('/private')).toBe(true); // only our group applies
    const anyone = parseRobots(text, 'somebot');
    expect(anyone.isAllowed('/private/x')).toBe(false);
    expect(anyone.isAllowed('/private/press')).toBe(true); // longest match wins
    expect(anyone.isAllowed('/files/a.pdf')).toBe(false);
    expect(anyone.isAllowed('/files/a.pdf?x=1')).toBe(true); // $ anchors the end
    expect(anyone.isAllowed('/')).toBe(true);
  });

  it('lets Allow win a tie and treats an empty Disallow as allow-all', () => {
    expect(parseRobots('User-agent: *\nDisallow: /a\nAllow: /a', 'x').isAllowed('/a')).toBe(true);
    expect(parseRobots('User-agent: *\nDisallow:', 'x').isAllowed('/anything')).toBe(true);
    expect(parseRobots('User-agent: *\nDisallow: /', 'x').isAllowed('/')).toBe(false);
  });

  it('compares percent-encoded and raw paths alike', () => {
    expect(parseRobots('User-agent: *\nDisallow: /über', 'x').isAllowed('/%C3%BCber/team')).toBe(false);
  });
});
