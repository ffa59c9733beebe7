import { type Static, Type } from 'typebox';
import { ERROR_CODES, type ErrorCode } from '../errors-table.js';

/** The body of every error response (spec §7): `{ error: { code, message, request_id } }`. */
export const ErrorBodySchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Enum(ERROR_CODES as ErrorCode[], { description: 'One of the spec §7 codes' }),
        message: Type.String({ description: 'What went wrong, for a person to read' }),
        request_id: Type.String({ pattern: '^req_', description: 'Same as the X-Request-Id header' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'The body of every error response' },
);

/** The body of every error response (spec §7). */
export type ErrorBody = Static<typeof ErrorBodySchema>;
