import type { JsonNode } from './jsonld.js';

/**
 * schema.org microdata (`itemscope`/`itemtype`/`itemprop`) read while htmlparser2 walks a page,
 * turned into JSON-LD-shaped nodes (`@type`, `@id`, properties) so that one reader (`jsonld.ts`)
 * interprets both. Values follow the HTML microdata rules: `content` wins, then a URL attribute
 * for elements that carry one (`href`, `src`, `data`), `datetime` or `value`, else the text.
 */

/** Most items kept per page and characters per text value: a page cannot make us hold more. */
const MAX_ITEMS = 200;
const MAX_VALUE = 2_000;

const URL_ATTRIBUTE: Record<string, string> = {
  a: 'href',
  area: 'href',
  link: 'href',
  img: 'src',
  audio: 'src',
  video: 'src',
  embed: 'src',
  iframe: 'src',
  source: 'src',
  track: 'src',
  object: 'data',
};

interface Frame {
  tag: string;
  /** The item this element opens (itemscope). */
  item?: JsonNode;
  /** A property whose value is this element's text, collected until it closes. */
  textProperty?: { names: string[]; target: JsonNode; parts: string[]; length: number };
}

function addProperty(target: JsonNode, names: string[], value: unknown): void {
  for (const name of names) {
    const existing = target[name];
    if (existing === undefined) target[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else target[name] = [existing, value];
  }
}

/** Collects microdata items from parser events; `items` are the top-level ones. */
export class MicrodataCollector {
  readonly items: JsonNode[] = [];
  private readonly stack: Frame[] = [];
  private count = 0;

  constructor(private readonly resolve: (raw: string | undefined) => string | null) {}

  private parentItem(): JsonNode | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const item = this.stack[i]!.item;
      if (item) return item;
    }
    return undefined;
  }

  open(tag: string, attrs: Record<string, string>): void {
    const frame: Frame = { tag };
    const names = (attrs.itemprop ?? '').split(/\s+/).filter((n) => n !== '');
    const parent = this.parentItem();
    if (attrs.itemscope !== undefined && this.count < MAX_ITEMS) {
      this.count++;
      const item: JsonNode = {};
      const types = (attrs.itemtype ?? '').split(/\s+/).filter((t) => t !== '');
      if (types.length > 0) item['@type'] = types;
      const id = attrs.itemid?.trim();
      if (id) item['@id'] = this.resolve(id) ?? id;
      frame.item = item;
      if (parent && names.length > 0) addProperty(parent, names, item);
      else this.items.push(item);
    } else if (parent && names.length > 0) {
      const value = this.immediateValue(tag, attrs);
      if (value !== undefined) addProperty(parent, names, value);
      else frame.textProperty = { names, target: parent, parts: [], length: 0 };
    }
    this.stack.push(frame);
  }

  private immediateValue(tag: string, attrs: Record<string, string>): string | undefined {
    if (attrs.content !== undefined) return attrs.content.trim();
    const urlAttribute = URL_ATTRIBUTE[tag];
    if (urlAttribute) return this.resolve(attrs[urlAttribute]) ?? undefined;
    if (tag === 'time' && attrs.datetime !== undefined) return attrs.datetime.trim();
    if ((tag === 'data' || tag === 'meter') && attrs.value !== undefined) return attrs.value.trim();
    return undefined;
  }

  text(data: string): void {
    for (const frame of this.stack) {
      const property = frame.textProperty;
      if (property && property.length < MAX_VALUE) {
        property.parts.push(data);
        property.length += data.length;
      }
    }
  }

  close(tag: string): void {
    // Close up to the matching element; htmlparser2 reports implied closes, so this rarely skips.
    let index = this.stack.length - 1;
    while (index >= 0 && this.stack[index]!.tag !== tag) index--;
    if (index < 0) return;
    while (this.stack.length > index) {
      const frame = this.stack.pop()!;
      const property = frame.textProperty;
      if (property) {
        const value = property.parts.join('').replace(/\s+/g, ' ').trim().slice(0, MAX_VALUE);
        if (value !== '') addProperty(property.target, property.names, value);
      }
    }
  }
}
