/** One validation error as Fastify hands it over (AJV's shape, which TypeBox's errors follow). */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params?: Record<string, unknown>;
  message?: string;
}

const PARTS: Record<string, string> = {
  body: '',
  querystring: 'query parameter ',
  params: 'path parameter ',
  headers: 'header ',
};

/** `/options/probe` → `options.probe`, `/emails/3` → `emails[3]` (JSON Pointer unescaped). */
function fieldName(pointer: string, child?: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  let name = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) name += `[${segment}]`;
    else name += name === '' ? segment : `.${segment}`;
  }
  return name;
}

function label(part: string, pointer: string, child?: string): string {
  const name = fieldName(pointer, child);
  if (name === '') return part === 'body' || part === '' ? 'the body' : `the ${PARTS[part] ?? ''}`.trim();
  return `${PARTS[part] ?? ''}${name}`;
}

/**
 * One sentence naming the field a request got wrong, from the validator's errors: the first
 * problem found, as `emails[3] must be string` or `email is required`. Alternatives of a union
 * of constants are listed together (`type must be one of "verify_email", "geo_ip"`).
 */
export function validationMessage(issues: readonly ValidationIssue[], part = 'body'): string {
  const first = issues.find((issue) => issue.keyword !== 'boolean') ?? issues[0];
  if (!first) return `${label(part, '')} is not valid`;
  const params = first.params ?? {};
  if (first.keyword === 'required') {
    const missing = (params.requiredProperties ?? [params.missingProperty]) as unknown[];
    const names = missing
      .filter((m): m is string => typeof m === 'string')
      .map((m) => label(part, first.instancePath, m));
    return names.length > 1
      ? `${names.join(', ')} are required`
      : `${names[0] ?? label(part, first.instancePath)} is required`;
  }
  if (first.keyword === 'additionalProperties') {
    const extra = (params.additionalProperties ?? [params.additionalProperty]) as unknown[];
    const names = extra
      .filter((m): m is string => typeof m === 'string')
      .map((m) => label(part, first.instancePath, m));
    return `${names.join(', ') || label(part, first.instancePath)} ${names.length > 1 ? 'are not known fields' : 'is not a known field'}`;
  }
  const where = label(part, first.instancePath);
  const constants = issues
    .filter((i) => i.instancePath === first.instancePath && (i.keyword === 'const' || i.keyword === 'enum'))
    .flatMap((i) => {
      const p = i.params ?? {};
      return i.keyword === 'const' ? [p.allowedValue] : ((p.allowedValues as unknown[]) ?? []);
    });
  if (constants.length > 0)
    return `${where} must be one of ${constants.map((c) => JSON.stringify(c)).join(', ')}`;
  return `${where} ${first.message ?? 'is not valid'}`;
}
