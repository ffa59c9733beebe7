// CSV in both directions: results as rows, shared by every export (the CLI's --out, batch job exports, later the
// server's ?format=csv), so one result looks the same whichever way it is exported; and one line
// split into fields, for every CSV we read (uploaded lists, the ASN data).

/** Flattens nested objects into dot-separated columns (`mx.records`); arrays become `;`-joined text. */
export function flatten(
  value: Record<string, unknown>,
  prefix = '',
  into: Record<string, string> = {},
): Record<string, string> {
  for (const [key, item] of Object.entries(value)) {
    const column = prefix ? `${prefix}.${key}` : key;
    if (item === null || item === undefined) into[column] = '';
    else if (Array.isArray(item))
      into[column] = item
        .map((entry) => (typeof entry === 'object' ? JSON.stringify(entry) : String(entry)))
        .join(';');
    else if (typeof item === 'object') flatten(item as Record<string, unknown>, column, into);
    else into[column] = String(item);
  }
  return into;
}

/** One CSV field, quoted when it holds a comma, quote or line break (RFC 4180). */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Splits one CSV line (RFC 4180 quoting: "a, b" and "" for a quote) into fields. */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields;
}
