import { isDottedQuad } from './dotted-quad.js';
import { showChar } from './problems.js';

/**
 * Checks the text after `IPv6:` in an address literal against RFC 5321 §4.1.3:
 *
 *     IPv6-full   = IPv6-hex 7(":" IPv6-hex)
 *     IPv6-comp   = [IPv6-hex *5(":" IPv6-hex)] "::" [IPv6-hex *5(":" IPv6-hex)]
 *     IPv6v4-full = IPv6-hex 5(":" IPv6-hex) ":" IPv4-address-literal
 *     IPv6v4-comp = [IPv6-hex *3(":" IPv6-hex)] "::" [IPv6-hex *3(":" IPv6-hex) ":"] IPv4-address-literal
 *
 * where "::" stands for at least two zero groups, so at most six groups (four before an IPv4
 * tail) may stand beside it. That is stricter than RFC 4291 text (and `@svc/ip-address`), which
 * lets "::" replace a single group. Returns null when valid, otherwise why not, as a phrase
 * that follows "is not a valid IPv6 address literal: ".
 */
export function ipv6LiteralProblem(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25) return `it has a zone id ("${text.slice(i)}"), which RFC 5321 has no syntax for`;
    if (c !== 0x3a && c !== 0x2e && hexValue(c) < 0) {
      const ch = String.fromCodePoint(text.codePointAt(i) as number);
      return `it contains ${showChar(ch)}, which is neither a hex digit, ":" nor "."`;
    }
  }

  const gap = text.indexOf('::');
  if (gap >= 0 && text.indexOf('::', gap + 1) >= 0) {
    return text.includes(':::')
      ? 'it has ":::"; groups are separated by one ":", and "::" may appear once'
      : 'it uses "::" more than once';
  }
  const left = gap < 0 ? text : text.slice(0, gap);
  const right = gap < 0 ? '' : text.slice(gap + 2);
  const groups = [...split(left), ...split(right)];
  if (groups.includes('')) {
    if (text.charCodeAt(0) === 0x3a && gap !== 0) return 'it starts with a single ":"';
    if (text.charCodeAt(text.length - 1) === 0x3a && gap !== text.length - 2)
      return 'it ends with a single ":"';
    return 'it has an empty group';
  }

  // Only the text after the last ":" may be a dotted quad.
  const hasIpv4 = text.slice(text.lastIndexOf(':') + 1).includes('.');
  const last = groups.at(-1) as string;
  const hexGroups = hasIpv4 ? groups.slice(0, -1) : groups;
  for (const group of hexGroups) {
    if (group.includes('.')) return `the IPv4 part "${group}" must come last`;
    if (group.length > 4) return `the group "${group}" has more than 4 hex digits`;
  }
  if (hasIpv4 && !isDottedQuad(last)) {
    return `its IPv4 part "${last}" is not four decimal numbers from 0 to 255 separated by dots`;
  }

  const count = hexGroups.length;
  // Groups an address of this form has besides its IPv4 tail: 8, or 6 (the tail is two groups).
  const needed = hasIpv4 ? 6 : 8;
  const tailNote = hasIpv4 ? ' before the IPv4 part' : '';
  if (gap < 0) {
    if (count === needed) return null;
    return `it has ${count} groups${tailNote}; without "::" it needs exactly ${needed}`;
  }
  if (count <= needed - 2) return null;
  if (count === needed - 1) {
    const expanded = `${left}${left === '' ? '' : ':'}0${right === '' ? '' : ':'}${right}`;
    return `"::" stands for a single zero group; RFC 5321 lets "::" replace two or more groups, so write that group out: ${expanded}`;
  }
  return `it has ${count} groups${tailNote} besides "::"; at most ${needed - 2} may stand beside it`;
}

function split(side: string): string[] {
  return side === '' ? [] : side.split(':');
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}
