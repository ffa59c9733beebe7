import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { firstValidationErrors } from './first-validation-errors.js';

/**
 * Validates requests with TypeBox's compiled checks, as `TypeBoxValidatorCompiler` from
 * @fastify/type-provider-typebox does, with one difference: params, query and headers are
 * converted (`'10'` to `10` for an integer) only when the value as sent does not pass already.
 * That package converts every request first, which cost about 4 µs of a geo lookup's ~40 µs;
 * most requests pass as sent. Bodies are never converted (JSON has its own types). A value that
 * fails is described by its first problem only (`firstValidationErrors`: a 50,000-item list with
 * a wrong item is not walked to its end), which `validationMessage` turns into the spec's message.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  return (value: unknown) => {
    if (check.Check(value)) return { value };
    if (httpPart === 'body') return { error: firstValidationErrors(schema, value) as never };
    const converted = Value.Convert(schema, value);
    if (check.Check(converted)) return { value: converted };
    return { error: firstValidationErrors(schema, converted) as never };
  };
};

/**
 * Serializes every response with JSON.stringify instead of fast-json-stringify. The routes'
 * response schemas still document the API (OpenAPI) and are checked against every answer of the
 * end-to-end suite, where an undeclared property fails (test/support/openapi.ts), so they are not
 * needed to filter fields here; and for our results, whose fields are mostly nullable unions,
 * fast-json-stringify picked each union's branch by running a validator per field: about 12 µs
 * per geo answer in the server against about 4 µs for JSON.stringify.
 */
export const serializerCompiler: FastifySerializerCompiler<unknown> = () => serializeJson;

function serializeJson(data: unknown): string {
  return JSON.stringify(data);
}
