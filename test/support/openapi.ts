import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

// ajv-formats is CommonJS (`module.exports = formatsPlugin`, and `.default` the same function);
// under NodeNext TypeScript types the default import as the module object, so take `.default`.
const addFormats = ajvFormats.default;

type Json = Record<string, unknown>;

/** One response as the suite saw it. */
export interface SeenResponse {
  method: string;
  /** The path requested, query included or not. */
  url: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body, or undefined for an empty or non-JSON body. */
  body: unknown;
}

/**
 * Checks responses against an OpenAPI 3.1 document (the one the server serves): the document
 * itself against the OpenAPI 3.1 schema, then each response's status, content type and body
 * against the operation it answers. Bodies are validated with Ajv's JSON Schema 2020-12 dialect,
 * the dialect OpenAPI 3.1 schemas are written in.
 */
export class OpenApiChecker {
  readonly #document: Json;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #templates: { template: string; pattern: RegExp; params: number }[];

  private constructor(document: Json) {
    this.#document = document;
    // strict off: OpenAPI adds annotation keywords (example, discriminator, xml) Ajv does not know.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    // The document is registered whole (not checked as a JSON Schema: it is not one) so that its
    // own `#/components/schemas/…` references resolve inside it.
    this.#ajv.addSchema(closedObjects(document), 'openapi.json', undefined, false);
    this.#templates = Object.keys((document.paths ?? {}) as Json).map((template) => ({
      template,
      pattern: new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
      ),
      params: (template.match(/\{/g) ?? []).length,
    }));
  }

  /** Validates the document as OpenAPI 3.1 and returns a checker over it; throws listing the problems. */
  static async create(document: unknown): Promise<OpenApiChecker> {
    const validator = new Validator();
    // The validator keeps what it is given; hand it a copy so ours stays untouched.
    const result = await validator.validate(structuredClone(document) as Json);
    if (!result.valid) {
      throw new Error(
        `the OpenAPI document is not valid: ${JSON.stringify(result.errors, null, 2).slice(0, 4000)}`,
      );
    }
    if (!String((document as Json).openapi).startsWith('3.1.'))
      throw new Error(`the document is OpenAPI ${String((document as Json).openapi)}, not 3.1`);
    return new OpenApiChecker(document as Json);
  }

  get document(): Json {
    return this.#document;
  }

  /** The path template that serves a concrete path (literal segments win over parameters). */
  templateFor(path: string): string | null {
    const matches = this.#templates.filter((entry) => entry.pattern.test(path));
    matches.sort((a, b) => a.params - b.params);
    return matches[0]?.template ?? null;
  }

  /** Throws an Error saying what does not match; returns quietly when the response is as documented. */
  check(response: SeenResponse): void {
    const path = new URL(response.url, 'http://x').pathname;
    const where = `${response.method} ${path} → ${response.status}`;
    const template = this.templateFor(path);
    const operation =
      template === null
        ? null
        : ((this.#document.paths as Json)[template] as Json)[response.method.toLowerCase()];
    if (template === null || operation === undefined) {
      // A path or method the API does not have: the answer must still be the documented error body.
      if (response.status < 400)
        throw new Error(`${where}: not in the document, yet answered ${response.status}`);
      this.#checkBody(where, this.#errorSchemaPointer(), response.body);
      return;
    }
    const responses = (operation as Json).responses as Json;
    const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((key) =>
      Object.hasOwn(responses, key),
    );
    if (statusKey === undefined)
      throw new Error(
        `${where}: the document declares no ${response.status} response (declares ${Object.keys(responses).join(', ')})`,
      );
    const declared = responses[statusKey] as Json;
    const content = declared.content as Json | undefined;
    if (content === undefined || Object.keys(content).length === 0) {
      if (response.body !== undefined && response.status !== 204)
        throw new Error(
          `${where}: the document declares no body, yet one came: ${JSON.stringify(response.body).slice(0, 200)}`,
        );
      return;
    }
    const mediaType = (response.contentType ?? '').split(';')[0]?.trim() ?? '';
    if (!Object.hasOwn(content, mediaType))
      throw new Error(
        `${where}: content type ${JSON.stringify(response.contentType)} is not one of ${Object.keys(content).join(', ')}`,
      );
    if (mediaType !== 'application/json') return;
    const pointer = `#/paths/${escapePointer(template)}/${response.method.toLowerCase()}/responses/${escapePointer(statusKey)}/content/${escapePointer(mediaType)}/schema`;
    this.#checkBody(where, pointer, response.body);
  }

  /**
   * The error body's schema: `components.schemas.Error…` when the document names one, else the
   * schema of the first documented 4xx JSON response (every error has the one spec body).
   */
  #errorSchemaPointer(): string {
    const schemas = ((this.#document.components as Json | undefined)?.schemas ?? {}) as Json;
    const name = Object.keys(schemas).find((key) => /^Error(Body|Response)?$/i.test(key));
    if (name !== undefined) return `#/components/schemas/${escapePointer(name)}`;
    for (const [template, item] of Object.entries(this.#document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        const responses = ((operation as Json).responses ?? {}) as Json;
        const status = Object.keys(responses).find((key) => key.startsWith('4'));
        const content = status ? ((responses[status] as Json).content as Json | undefined) : undefined;
        if (status && content?.['application/json'])
          return `#/paths/${escapePointer(template)}/${method}/responses/${status}/content/application~1json/schema`;
      }
    }
    throw new Error('the document declares no error response to check an error body against');
  }

  #checkBody(where: string, pointer: string, body: unknown): void {
    let validate = this.#compiled.get(pointer);
    if (validate === undefined) {
      validate = this.#ajv.compile({ $ref: `openapi.json${pointer}` });
      this.#compiled.set(pointer, validate);
    }
    if (!validate(body)) {
      const problems = (validate.errors ?? [])
        .slice(0, 5)
        .map(
          (error) =>
            `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
        );
      throw new Error(
        `${where}: body does not match the document:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 500)}`,
      );
    }
  }
}

/**
 * A copy of the document in which every object schema that lists its properties and says
 * nothing about others refuses undeclared ones (`unevaluatedProperties: false`). The server
 * serializes answers with JSON.stringify, which, unlike a schema-driven serializer, would pass on
 * a field a handler returned by mistake: here such a field fails the suite instead.
 */
export function closedObjects<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closedObjects) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = closedObjects(value);
  const open = ['additionalProperties', 'unevaluatedProperties', 'patternProperties'].some((key) =>
    Object.hasOwn(copy, key),
  );
  if (copy.type === 'object' && typeof copy.properties === 'object' && !open)
    copy.unevaluatedProperties = false;
  return copy as T;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
