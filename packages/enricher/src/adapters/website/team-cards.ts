import { Parser } from 'htmlparser2';
import { collapse } from './extract.js';
import { personProfile } from './social.js';

/** One person a team, about or leadership page shows as a card of plain HTML (no schema.org markup). */
export interface TeamCard {
  /** As written, honorific bullets ("» ") and trailing degrees (", PhD") removed. */
  name: string;
  /** The line next to the name (after it, else before it), or null. */
  title: string | null;
  /** Addresses of the card's `mailto:` links and its text, lower-cased. */
  emails: string[];
  /** The first link to a person's profile on a professional or social network (canonical form). */
  profileUrl: string | null;
}

/** A light element tree (htmlparser2 events), with text kept as lines. */
interface Node {
  tag: string;
  attrs: Record<string, string>;
  children: Array<Node | string>;
  parent: Node | null;
}

/** Elements whose content is not text a visitor reads. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'select', 'button']);
/** Elements that do not break a line of text ("<strong>Jane</strong> Roe" is one line). */
const INLINE = new Set([
  'a',
  'b',
  'strong',
  'em',
  'i',
  'u',
  'small',
  'abbr',
  'sup',
  'sub',
  'font',
  'mark',
  'bdi',
  'q',
]);
const HEADINGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);
/** Most characters of text a card holds (a name, a title and a short bio). */
const MAX_CARD_TEXT = 1500;
const NOT_TEAM =
  /(?:^|[\s_-])(?:testimonials?|reviews?|quotes?|comments?|byline|authors?|news|blog|teasers?|related|products?|posts|articles|post-list|article-list|stories|story|feed|river|headlines?|shop|cart|nav|navbar|navigation|menu|header|footer|cookies?|consent|breadcrumbs?)(?:$|[\s_-])/i;
/** The site's frame and forms: links, not people. */
const NOT_TEAM_TAGS = new Set(['blockquote', 'nav', 'header', 'footer', 'form']);
const PAGE_TAGS = new Set(['#root', 'html', 'body', 'main']);
/** Most cards read from one page. */
const MAX_CARDS = 500;

function parse(html: string): Node {
  const root: Node = { tag: '#root', attrs: {}, children: [], parent: null };
  let current = root;
  let skipped = 0;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (skipped > 0 || SKIPPED.has(name)) {
          skipped++;
          return;
        }
        const node: Node = { tag: name, attrs, children: [], parent: current };
        current.children.push(node);
        current = node;
      },
      ontext(text) {
        if (skipped === 0) current.children.push(text);
      },
      onclosetag(name) {
        if (skipped > 0) {
          skipped--;
          return;
        }
        // Close up to the matching element (htmlparser2 implies the closing of void and unclosed ones).
        for (let node: Node | null = current; node && node !== root; node = node.parent) {
          if (node.tag === name) {
            current = node.parent ?? root;
            break;
          }
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return root;
}

/**
 * The lines of text of nodes, split where a block element starts or ends; null past `max`
 * characters (a card is short: a section of the page is not read to its end for nothing).
 */
function linesOf(nodes: Array<Node | string>, max = Number.POSITIVE_INFINITY): string[] | null {
  const lines: string[] = [];
  let line = '';
  let length = 0;
  const flush = () => {
    const text = collapse(line);
    if (text !== '') lines.push(text);
    line = '';
  };
  const walk = (node: Node | string): boolean => {
    if (typeof node === 'string') {
      line += node;
      length += node.length;
      return length <= max;
    }
    const breaks = !INLINE.has(node.tag);
    if (breaks) flush();
    for (const child of node.children) if (!walk(child)) return false;
    if (breaks) flush();
    return true;
  };
  for (const node of nodes) if (!walk(node)) return null;
  flush();
  return lines;
}

function elements(nodes: Array<Node | string>): Node[] {
  return nodes.filter((node): node is Node => typeof node !== 'string');
}

function anchors(nodes: Array<Node | string>, out: string[] = []): string[] {
  for (const node of elements(nodes)) {
    if (node.tag === 'a' && node.attrs.href) out.push(node.attrs.href.trim());
    anchors(node.children, out);
  }
  return out;
}

const EMAIL = /[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/gi;

/** The addresses of `mailto:` links (several may be listed, comma-separated) and of the text. */
function emailsOf(hrefs: string[], lines: string[]): string[] {
  const found = new Set<string>();
  for (const href of hrefs) {
    if (!/^mailto:/i.test(href)) continue;
    let target = href.slice(7).split('?')[0] ?? '';
    try {
      target = decodeURIComponent(target);
    } catch {
      // a malformed escape: read the raw text
    }
    for (const match of target.matchAll(EMAIL)) found.add(match[0].toLowerCase());
  }
  for (const line of lines) for (const match of line.matchAll(EMAIL)) found.add(match[0].toLowerCase());
  return [...found];
}

// Words that make a line a role, a heading or a control, never a person's name (EN/DE/FR/ES/IT/PT).
const NOT_A_NAME = new Set(
  `ceo cto cfo coo cmo cio cpo cso chief officer president vice vp svp evp director head manager lead
  founder co-founder cofounder partner engineer developer designer consultant analyst assistant associate
  advisor adviser specialist coordinator administrator chair chairman chairwoman chairperson board member
  secretary treasurer executive senior junior intern principal professor researcher scientist architect
  owner editor writer marketing sales operations finance product support counsel attorney lawyer
  accountant team our meet the about us leadership management staff people contact contacts read more view
  profile email e-mail phone tel fax linkedin twitter follow all and of for with open jobs careers join
  unser unsere uns kontakt ansprechpartner ansprechpartnerin vorstand mitarbeiter geschäftsführer
  geschäftsführerin gründer gründerin inhaber inhaberin leitung direktor direktorin mehr über
  directeur directrice gérant gérante fondateur fondatrice responsable équipe notre nos
  jefe jefa gerente fundador fundadora socio socia nuestro nuestra equipo presidente presidenta
  amministratore responsabile diretor diretora sócio sócia nossa nosso by written
  privacy policy terms cookies cookie sign subscribe newsletter newsletters home services products news
  blog events careers press media download launching center centre guide feeds archive tools store support
  help faq login register account search menu latest popular new neues neue aktuelle aktueller featured
  recommended digital global free best top official info gmbh ag kg inc ltd llc plc corp sa sas srl bv`.split(
    /\s+/,
  ),
);
// German compound roles ("Drupalspezialistin", "Kanzleileitung", "Rechtsfachwirtin").
const ROLE_SUFFIX =
  /(?:leiter|leiterin|leitung|führer|führerin|referent|referentin|beauftragter?|spezialist|spezialistin|architekt|architektin|berater|beraterin|entwickler|entwicklerin|assistent|assistentin|angestellter?|fachwirt|fachwirtin|manager|managerin|direktor|direktorin|meister|meisterin|vorsitzender?|kauffrau|kaufmann|ingenieur|ingenieurin|administrator|administratorin)$/i;
const NOUN_ENDING = /^\p{L}{4,}(?:ungen|ung|heit|keit|schaft|tion|tionen|ismus|ität)$/u;
const PARTICLES = new Set([
  'von',
  'van',
  'de',
  'der',
  'den',
  'da',
  'di',
  'du',
  'la',
  'le',
  'del',
  'della',
  'bin',
  'al',
  'ten',
  'ter',
  'y',
  'zu',
  'af',
  'dos',
  'das',
]);
/** Honorifics and degrees that may stand before a name ("Dr. Jane Roe", "Prof. Dr.-Ing. …", "Mag."). */
const HONORIFIC = /^(?:dr|prof|mag|dipl|ing|mr|mrs|ms|mx|mme|herr|frau|sr|sra|sig|dott)\.?(?:-[a-z]+\.?)?$/i;

/** "» Jane Roe, PhD" → "Jane Roe": bullets and a short trailing degree after a comma removed. */
function cleanName(line: string): string {
  let text = line.replace(/^[\s»›·•*–—-]+/u, '').trim();
  const comma = text.indexOf(',');
  if (comma > 0 && text.length - comma <= 12) text = text.slice(0, comma).trim();
  return text;
}

/** Whether a line reads as a person's name: 2–4 capitalised words (particles and honorifics aside), nothing else. */
export function looksLikePersonName(line: string): boolean {
  const text = cleanName(line);
  if (text.length < 4 || text.length > 60 || /[\d@:/|()[\]{}!?;"“”]/.test(text)) return false;
  const words = text.split(/\s+/).filter((word) => !HONORIFIC.test(word));
  const named = words.filter((word) => !PARTICLES.has(word));
  if (named.length < 2 || named.length > 4 || words.length > 6) return false;
  for (const word of named) {
    if (NOT_A_NAME.has(word.toLowerCase()) || ROLE_SUFFIX.test(word)) return false;
    // "Jane", "O'Neil", "García-López", "McKay", an initial "N."; all capitals too ("JANE ROE").
    if (!/^\p{Lu}(?:[\p{L}'’-]*\p{L})?\.?$/u.test(word)) return false;
    if (word.endsWith('.') && word.length > 2) return false;
    // German nouns are capitalised too ("Erstellung von Einkommensteuererklärungen"): a long word
    // with a noun ending, or one longer than names are (hyphenated names aside), is no name.
    if (NOUN_ENDING.test(word) || (word.length > 16 && !word.includes('-'))) return false;
  }
  return true;
}

const NOISE =
  /^(?:read more|more|mehr|weiterlesen|en savoir plus|leer más|view profile|profile|bio|e-?mail|tel|phone|fax|linkedin|twitter|x|xing|github|contact|kontakt)\b/i;

/** Whether a line can be a job title: short, one phrase, no address, link or phone number. */
function looksLikeTitle(line: string): boolean {
  if (line.length < 2 || line.length > 100) return false;
  if (/@|https?:|www\.|\d/i.test(line) || NOISE.test(line)) return false;
  // A title starts with a word ("Head of Sales", "directrice"), not "by …", "in …" or "[close]".
  if (!/^\p{L}/u.test(line) || /^(?:by|in|von|par|por|written|image|photo|foto)\b/i.test(line)) return false;
  const words = line.split(/\s+/).length;
  return words <= 12 && !/[.!?]\s+\p{Lu}/u.test(line);
}

/** The card one element (or a run of siblings) makes, or null when it is not one person's card. */
function cardOf(nodes: Array<Node | string>): TeamCard | null {
  // Raw text counts whitespace and indentation too: allow for it before collapsing.
  const lines = linesOf(nodes, MAX_CARD_TEXT * 4);
  if (lines === null || lines.length === 0 || lines.join(' ').length > MAX_CARD_TEXT) return null;
  const nameAt = lines.slice(0, 3).findIndex(looksLikePersonName);
  if (nameAt < 0) return null;
  const after = lines[nameAt + 1];
  const before = nameAt > 0 ? lines[nameAt - 1] : undefined;
  const title =
    after !== undefined && looksLikeTitle(after) && !looksLikePersonName(after)
      ? after
      : before !== undefined && looksLikeTitle(before) && !looksLikePersonName(before)
        ? before
        : after !== undefined && looksLikeTitle(after)
          ? after
          : null;
  // A second name line (other than the title) means the element holds several people: not a card.
  const names = lines.filter((line, i) => i !== nameAt && line !== title && looksLikePersonName(line));
  if (names.length > 0) return null;
  const hrefs = anchors(nodes);
  const emails = emailsOf(hrefs, lines);
  if (title === null && emails.length === 0) return null;
  const profileUrl =
    hrefs
      .filter((href) => /^https?:\/\//i.test(href))
      .map(personProfile)
      .find((url): url is string => url !== null) ?? null;
  return { name: cleanName(lines[nameAt]!), title, emails, profileUrl };
}

/**
 * Runs of siblings that stand for one card each where a page has no element per person: the
 * children split at `<hr>`s, or at each repeated heading (`<h3>Jane Roe</h3><p>CEO</p><h3>…`).
 */
function siblingRuns(parent: Node): Array<Array<Node | string>> {
  const children = parent.children;
  const runs: Array<Array<Node | string>> = [];
  if (elements(children).some((child) => child.tag === 'hr')) {
    let run: Array<Node | string> = [];
    for (const child of children) {
      if (typeof child !== 'string' && child.tag === 'hr') {
        runs.push(run);
        run = [];
      } else run.push(child);
    }
    runs.push(run);
    return runs;
  }
  const headings = elements(children).filter((child) => HEADINGS.has(child.tag));
  const tag = headings[0]?.tag;
  if (tag === undefined || headings.filter((h) => h.tag === tag).length < 2) return [];
  let run: Array<Node | string> | null = null;
  for (const child of children) {
    if (typeof child !== 'string' && child.tag === tag) {
      if (run) runs.push(run);
      run = [child];
    } else run?.push(child);
  }
  if (run) runs.push(run);
  return runs;
}

/**
 * The people a page shows as repeated cards: sibling elements of one tag (or runs of siblings,
 * `siblingRuns`) of which at least two each hold exactly one person's name, with a title next to
 * it or an address. An element holding several names is a list, not a card; a card inside
 * another card wins over it (the innermost is the person's).
 */
export function teamCards(html: string): TeamCard[] {
  const root = parse(html);
  const found: Array<{ card: TeamCard; owner: Node | null; parent: Node }> = [];
  const visit = (parent: Node) => {
    // Quotes of customers, reviews, comments, bylines and news or blog teasers name people who
    // may work elsewhere, under a headline rather than a title: never cards of the company's people.
    // (The page's own classes say how it is built — `menu-type-dropdown` on a body — not what it holds.)
    const framed =
      !PAGE_TAGS.has(parent.tag) && NOT_TEAM.test(`${parent.attrs.class ?? ''} ${parent.attrs.id ?? ''}`);
    if (NOT_TEAM_TAGS.has(parent.tag) || framed) return;
    const children = elements(parent.children);
    const byTag = new Map<string, Node[]>();
    for (const child of children) {
      const group = byTag.get(child.tag);
      if (group) group.push(child);
      else byTag.set(child.tag, [child]);
    }
    for (const [tag, group] of byTag) {
      // A link or emphasis inside running text ("ask <a>Jane Roe</a> or <a>Olga Lechzer</a>") is no card.
      if (group.length < 2 || INLINE.has(tag)) continue;
      const cards = group
        .map((element) => ({ card: cardOf([element]), owner: element }))
        .filter((entry): entry is { card: TeamCard; owner: Node } => entry.card !== null);
      if (cards.length >= 2) for (const entry of cards) found.push({ ...entry, parent });
    }
    const runs = siblingRuns(parent)
      .map(cardOf)
      .filter((card): card is TeamCard => card !== null);
    if (runs.length >= 2) for (const card of runs) found.push({ card, owner: null, parent });
    for (const child of children) visit(child);
  };
  visit(root);
  // Drop a card whose element contains another card's element (or parent): the inner one is the person's.
  const within = (inner: Node, outer: Node) => {
    for (let node: Node | null = inner; node; node = node.parent) if (node === outer) return true;
    return false;
  };
  const kept = found.filter(
    (entry) =>
      !found.some(
        (other) =>
          other !== entry &&
          entry.owner !== null &&
          (other.owner
            ? other.owner !== entry.owner && within(other.owner, entry.owner)
            : within(other.parent, entry.owner)),
      ),
  );
  // The same person from an element and from a run of its parent's siblings: keep one.
  const seen = new Set<string>();
  const cards: TeamCard[] = [];
  for (const { card } of kept) {
    const key = JSON.stringify([card.name, card.title, card.emails]);
    if (seen.has(key)) continue;
    seen.add(key);
    cards.push(card);
    if (cards.length >= MAX_CARDS) break;
  }
  return cards;
}
