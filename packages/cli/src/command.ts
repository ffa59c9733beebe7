import type { ParseArgsConfig } from 'node:util';
import type { ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';

/** Flags understood by every command. */
export interface GlobalFlags {
  /** Print machine-readable JSON on stdout instead of tables. */
  json: boolean;
}

/** What a command receives after its flags were parsed. */
export interface CommandContext<
  Values = Record<string, string | boolean | string[] | boolean[] | undefined>,
> {
  io: CliIo;
  flags: GlobalFlags;
  values: Values;
  positionals: string[];
  /** Every command main() knows, for help. */
  commands: readonly Command[];
}

/**
 * One `svc <name>` command. Later issues add commands by adding a file in src/commands/ and one
 * line in registry.ts; parsing, help, --json and exit codes are handled by main().
 */
export interface Command {
  name: string;
  /** One line for the global help. */
  summary: string;
  /** Usage lines after `svc <name>`, e.g. `<email...> [--probe]`. */
  usage: string[];
  /** Longer help: options and examples. */
  details?: string;
  /** node:util parseArgs options (besides the global --json and --help). */
  options?: ParseArgsConfig['options'];
  /** Runs the command; throws UsageError for a bad command line, ServiceError for failures. */
  run(context: CommandContext): Promise<ExitCode>;
}
