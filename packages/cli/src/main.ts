import { parseArgs } from 'node:util';
import type { Command, GlobalFlags } from './command.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { commandHelp, globalHelp } from './help.js';
import type { CliIo } from './io.js';
import { printError } from './output.js';
import { COMMANDS } from './registry.js';
import { UsageError } from './usage-error.js';
import { cliVersion } from './version.js';

const GLOBAL_OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

/** Runs `svc` with the given arguments (without `node` and the script) and returns the exit code. */
export async function main(
  argv: readonly string[],
  io: CliIo,
  commands: readonly Command[] = COMMANDS,
): Promise<ExitCode> {
  const flags: GlobalFlags = { json: argv.includes('--json') };
  const firstPositional = argv.findIndex((arg) => !arg.startsWith('-'));
  const name = firstPositional >= 0 ? argv[firstPositional] : undefined;
  const command = commands.find((candidate) => candidate.name === name);
  try {
    if (name !== undefined && !command) throw new UsageError(`unknown command "${name}"`);
    const rest = command ? argv.filter((_, index) => index !== firstPositional) : [...argv];
    const parsed = parseCommandLine(rest, command);
    if (parsed.values.help) {
      io.stdout.write(command ? commandHelp(command) : globalHelp(commands));
      return EXIT.ok;
    }
    if (!command) {
      if (parsed.values.version) {
        io.stdout.write(
          flags.json ? `${JSON.stringify({ version: cliVersion() })}\n` : `svc ${cliVersion()}\n`,
        );
        return EXIT.ok;
      }
      throw new UsageError('no command given');
    }
    const { help: _help, version: _version, json: _json, ...values } = parsed.values;
    return await command.run({ io, flags, values, positionals: parsed.positionals, commands });
  } catch (error) {
    if (error instanceof UsageError) {
      printError(io, flags, error);
      const target = commands.find((candidate) => candidate.name === (error.command ?? command?.name));
      if (!flags.json && error.showUsage)
        io.stderr.write(`\n${target ? commandHelp(target) : globalHelp(commands)}`);
      return EXIT.usage;
    }
    printError(io, flags, error);
    return EXIT.failure;
  }
}

function parseCommandLine(args: string[], command: Command | undefined) {
  try {
    return parseArgs({
      args,
      options: { ...GLOBAL_OPTIONS, ...command?.options },
      allowPositionals: command !== undefined,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error), command?.name);
  }
}

/**
 * Our own words for node:util parseArgs errors: its text changes between Node versions and
 * carries advice about `--` that does not fit svc.
 */
function parseArgsMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const quoted = /'([^']*)'/.exec(text)?.[1] ?? '';
  // "-h, --help <value>" → "--help"
  const flag = quoted.split(/[ ,]+/).find((part) => part.startsWith('--')) ?? quoted.split(' ')[0] ?? '';
  switch ((error as { code?: string }).code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${flag}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument (missing|is ambiguous)/.test(text)
        ? `${flag} needs a value`
        : `${flag} takes no value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}"`;
    default:
      return 'invalid arguments';
  }
}
