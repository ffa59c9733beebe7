export { commandOnPath, type ExternalNeed, REQUIRE_EXTERNAL, skipWithout } from './skip-without.js';
export { type ExternalService, POSTGRES, REDIS, serviceUrl, tcpReachable } from './services.js';
