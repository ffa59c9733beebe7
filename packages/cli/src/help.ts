import type { Command } from './command.js';

const GLOBAL_OPTIONS = `Global options:
  --json       machine-readable JSON on stdout (errors as {"error":{...}} on stderr)
  -h, --help   show help (also: svc help <command>)
  -v, --version
Exit codes: 0 ok, 1 failure, 2 bad usage.`;

/** The global help: every command with its summary. */
export function globalHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: svc <command> [options]\n\nCommands:\n${lines.join('\n')}\n\n${GLOBAL_OPTIONS}\n`;
}

/** The help of one command. */
export function commandHelp(command: Command): string {
  const usage = command.usage.map((line) => `  svc ${command.name} ${line}`.trimEnd()).join('\n');
  const details = command.details ? `\n${command.details.trimEnd()}\n` : '';
  return `${command.summary}\n\nUsage:\n${usage}\n${details}\n${GLOBAL_OPTIONS}\n`;
}
