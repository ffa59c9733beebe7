export { commandOnPath, type ExternalNeed, REQUIRE_EXTERNAL, skipWithout } from './skip-without.js';
