import { Parser } from 'htmlparser2';
import type { JsonNode } from './jsonld.js';
import { MicrodataCollector } from './microdata.js';
import type { TeamCard } from './team-cards.js';

/** An anchor on a page: its resolved URL and visible text. */
export interface PageLink {
  url: string;
  text: string;
  /**
   * Inside content the site shows rather than states about itself: an `<article>`, a
   * `<blockquote>`, an embedded post or third-party widget, an author box or comments.
   */
  inContent: boolean;
  /** Inside the site's frame: a `<header>`, `<footer>`, `<nav>`, or an element whose class or id says header, footer, nav, menu, social or follow. */
  inChrome: boolean;
}

/** Everything the adapter reads from one HTML page, before any interpretation. */
export interface PageFacts {
  /** The page's URL (base for relative links), after `<base href>`. */
  url: string;
  title: string;
  /** `<meta name|property|itemprop>` (lower-cased) → contents, in document order. */
  meta: Record<string, string[]>;
  /** Texts of `<script type="application/ld+json">`. */
  jsonLd: string[];
  /** Resolved `<script src>` URLs. */
  scripts: string[];
  /** Inline script texts (not JSON-LD). */
  inline: string[];
  /** Resolved link href, img/iframe/source src, form action URLs. */
  urls: string[];
  links: PageLink[];
  /** Icons from `<link rel="icon|apple-touch-icon">`, largest declared size first. */
  icons: string[];
  /** Images whose class, id or alt says "logo". */
  logoImages: string[];
  /** The alt texts of those images (in the same order, empty ones left out). */
  logoAlts: string[];
  /** The declared language: `<html lang>` (or `xml:lang`), else `<meta http-equiv="content-language">`; `''` when none. */
  lang: string;
  /** schema.org microdata items, as JSON-LD-shaped nodes. */
  microdata: JsonNode[];
  /** What kind of page the crawler fetched this as (`home`, `about`, …); absent for a page read alone. */
  kind?: string;
  /** On a team or about page: the people it shows as cards of plain HTML (`team-cards.ts`). */
  cards?: TeamCard[];
  /** Visible text (scripts and styles left out), whitespace collapsed, capped. */
  text: string;
}

/** Most visible text kept per page: enough for a founding year in an about page, bounded for huge pages. */
const MAX_TEXT = 200_000;
/** Most inline script text kept per page (fingerprints look for loader URLs, which come early). */
const MAX_INLINE = 100_000;

/** Elements that frame every page of a site, where its own profiles are linked. */
const CHROME_TAGS = new Set(['header', 'footer', 'nav']);
const CHROME_CLASS =
  /(?:^|[\s_-])(?:header|footer|nav|navbar|navigation|menu|social|socials|sociality|follow|follow-us)(?:$|[\s_-])/i;

/** Elements whose links are content, not the site speaking about itself. */
const CONTENT_TAGS = new Set(['article', 'blockquote']);
/** Classes of embedded posts and timelines (third-party widgets), author boxes, comments and reviews. */
const CONTENT_CLASS =
  /(?:^|[\s_-])(?:twitter-tweet|twitter-timeline|instagram-media|tiktok-embed|fb-post|fb-comments|embed(?:ded)?|author|byline|bio|comments?|testimonials?|reviews?)(?:$|[\s_-])/i;

function resolve(raw: string | undefined, base: string): string | null {
  if (raw === undefined) return null;
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return null;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return null;
  }
}

function iconSize(sizes: string | undefined): number {
  const match = /^(\d+)x\d+/i.exec(sizes?.trim() ?? '');
  return match ? Number(match[1]) : 0;
}

/** Parses one HTML document with htmlparser2 (tolerant, streaming; no regular expressions over markup). */
export function extractPage(html: string, pageUrl: string): PageFacts {
  const facts: PageFacts = {
    url: pageUrl,
    title: '',
    meta: {},
    jsonLd: [],
    scripts: [],
    inline: [],
    urls: [],
    links: [],
    icons: [],
    logoImages: [],
    logoAlts: [],
    lang: '',
    microdata: [],
    text: '',
  };
  let httpEquivLanguage = '';
  const microdata = new MicrodataCollector((raw) => resolve(raw, base));
  // Open elements, each marked when it starts content that is not the site's own statement.
  const open: Array<{ tag: string; content: boolean; chrome: boolean }> = [];
  let contentDepth = 0;
  let chromeDepth = 0;
  let base = pageUrl;
  const icons: Array<{ url: string; size: number; apple: boolean }> = [];
  const textParts: string[] = [];
  let textLength = 0;
  let inlineLength = 0;
  // What the parser is inside of: a script (JSON-LD or inline), a style, the title, or an anchor.
  let script: { jsonLd: boolean; parts: string[] } | null = null;
  let inStyle = false;
  let inTitle = false;
  let anchor: { url: string; parts: string[]; inContent: boolean; inChrome: boolean } | null = null;
  let bodyHidden = 0; // <template>, <noscript> depth: text there is not what a visitor reads

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        microdata.open(name, attrs);
        const content = CONTENT_TAGS.has(name) || CONTENT_CLASS.test(attrs.class ?? '');
        const chrome = CHROME_TAGS.has(name) || CHROME_CLASS.test(`${attrs.class ?? ''} ${attrs.id ?? ''}`);
        open.push({ tag: name, content, chrome });
        if (content) contentDepth++;
        if (chrome) chromeDepth++;
        switch (name) {
          case 'html': {
            const lang = attrs.lang ?? attrs['xml:lang'];
            if (lang !== undefined && facts.lang === '') facts.lang = lang.trim();
            break;
          }
          case 'base': {
            const href = resolve(attrs.href, pageUrl);
            if (href) base = href;
            break;
          }
          case 'title':
            inTitle = true;
            break;
          case 'meta': {
            if (attrs['http-equiv']?.trim().toLowerCase() === 'content-language' && attrs.content) {
              httpEquivLanguage ||= attrs.content.split(',')[0]!.trim();
            }
            const key = (attrs.property ?? attrs.name ?? attrs.itemprop)?.trim().toLowerCase();
            if (key && attrs.content !== undefined) {
              const list = facts.meta[key] ?? [];
              list.push(attrs.content.trim());
              facts.meta[key] = list;
            }
            break;
          }
          case 'script': {
            const type = (attrs.type ?? '').trim().toLowerCase();
            const src = resolve(attrs.src, base);
            if (src) facts.scripts.push(src);
            if (type === 'application/ld+json') script = { jsonLd: true, parts: [] };
            else if (!src) script = { jsonLd: false, parts: [] };
            break;
          }
          case 'style':
            inStyle = true;
            break;
          case 'template':
          case 'noscript':
            bodyHidden++;
            break;
          case 'a': {
            const href = resolve(attrs.href, base);
            if (href)
              anchor = { url: href, parts: [], inContent: contentDepth > 0, inChrome: chromeDepth > 0 };
            break;
          }
          case 'link': {
            const href = resolve(attrs.href, base);
            if (!href) break;
            facts.urls.push(href);
            const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
            if (rel.includes('icon') || rel.includes('apple-touch-icon')) {
              icons.push({ url: href, size: iconSize(attrs.sizes), apple: rel.includes('apple-touch-icon') });
            }
            break;
          }
          case 'img': {
            const src = resolve(attrs.src, base);
            if (!src) break;
            facts.urls.push(src);
            const hint = `${attrs.class ?? ''} ${attrs.id ?? ''} ${attrs.alt ?? ''} ${src}`.toLowerCase();
            if (hint.includes('logo')) {
              facts.logoImages.push(src);
              const alt = collapse(attrs.alt ?? '');
              if (alt !== '') facts.logoAlts.push(alt);
            }
            if (anchor && attrs.alt) anchor.parts.push(attrs.alt);
            break;
          }
          case 'iframe':
          case 'source':
          case 'embed': {
            // Lazy-loaded embeds keep their real address in data-src until a script swaps it in.
            for (const raw of [attrs.src, attrs['data-src'], attrs['data-lazy-src']]) {
              const src = resolve(raw, base);
              if (src) facts.urls.push(src);
            }
            break;
          }
          case 'form': {
            const action = resolve(attrs.action, base);
            if (action) facts.urls.push(action);
            break;
          }
        }
      },
      ontext(data) {
        if (script) {
          script.parts.push(data);
          return;
        }
        if (inStyle) return;
        microdata.text(data);
        if (inTitle) facts.title += data;
        if (anchor) anchor.parts.push(data);
        if (bodyHidden === 0 && !inTitle && textLength < MAX_TEXT) {
          textParts.push(data);
          textLength += data.length;
        }
      },
      onclosetag(name) {
        microdata.close(name);
        for (let i = open.length - 1; i >= 0; i--) {
          if (open[i]!.tag !== name) continue;
          for (const closed of open.splice(i)) {
            if (closed.content) contentDepth--;
            if (closed.chrome) chromeDepth--;
          }
          break;
        }
        switch (name) {
          case 'script':
            if (script) {
              const body = script.parts.join('');
              if (script.jsonLd) facts.jsonLd.push(body);
              else if (inlineLength < MAX_INLINE && body.trim() !== '') {
                facts.inline.push(body);
                inlineLength += body.length;
              }
              script = null;
            }
            break;
          case 'style':
            inStyle = false;
            break;
          case 'title':
            inTitle = false;
            break;
          case 'template':
          case 'noscript':
            bodyHidden = Math.max(0, bodyHidden - 1);
            break;
          case 'a':
            if (anchor) {
              facts.links.push({
                url: anchor.url,
                text: collapse(anchor.parts.join(' ')),
                inContent: anchor.inContent,
                inChrome: anchor.inChrome,
              });
              anchor = null;
            }
            break;
        }
        // Block ends separate words that markup alone would glue together ("Founded</p><p>2009").
        if (textLength < MAX_TEXT) textParts.push(' ');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  facts.title = collapse(facts.title);
  facts.lang ||= httpEquivLanguage;
  facts.microdata = microdata.items;
  facts.text = collapse(textParts.join('')).slice(0, MAX_TEXT);
  icons.sort((a, b) => Number(b.apple) - Number(a.apple) || b.size - a.size);
  facts.icons = icons.map((i) => i.url);
  return facts;
}

/** Collapses runs of whitespace (including no-break spaces) to one space. */
export function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}
