export { createScratchDatabase, scratchName, scratchSchemas } from './postgres-schemas.js';
export { type ExternalService, POSTGRES, REDIS, serviceUrl, tcpReachable } from './services.js';
export { commandOnPath, type ExternalNeed, REQUIRE_EXTERNAL, skipWithout } from './skip-without.js';
