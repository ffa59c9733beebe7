export type { Command, CommandContext, GlobalFlags } from './command.js';
export { EXIT, type ExitCode } from './exit-codes.js';
export { type CliIo, processIo } from './io.js';
export { main } from './main.js';
export { printError, printJson } from './output.js';
export { COMMANDS } from './registry.js';
export { UsageError } from './usage-error.js';
