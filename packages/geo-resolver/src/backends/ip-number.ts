/** The numeric value of a valid IPv4 or IPv6 address (as accepted by node:net isIP). */
export function ipToBigInt(ip: string, family: 4 | 6): bigint {
  if (family === 4) {
    let value = 0n;
    for (const part of ip.split('.')) value = (value << 8n) | BigInt(Number(part));
    return value;
  }
  let text = ip;
  // An embedded dotted quad (::ffff:1.2.3.4) becomes two hex words.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':') : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const words = [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right];
  let value = 0n;
  for (const word of words) value = (value << 16n) | BigInt(Number.parseInt(word, 16));
  return value;
}
