import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** Where the typed client's types live: generated from the served document, committed. */
export const CLIENT_TYPES_FILE = new URL('../generated/openapi.ts', import.meta.url);

/** The TypeScript types openapi-typescript makes from an OpenAPI document (what the file holds). */
export async function clientTypesFor(document: unknown): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
  return `${COMMENT_HEADER}// Regenerate: SVC_UPDATE_GENERATED=1 npx vitest run --project e2e typed-client\n\n${astToString(ast)}`;
}
