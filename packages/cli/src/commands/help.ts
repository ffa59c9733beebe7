import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { commandHelp, globalHelp } from '../help.js';
import { UsageError } from '../usage-error.js';

/** `svc help [command]`. */
export const helpCommand: Command = {
  name: 'help',
  summary: 'Show help for svc or one command',
  usage: ['[command]'],
  async run({ io, positionals, commands }) {
    const [name, ...extra] = positionals;
    if (extra.length > 0)
      throw new UsageError(`help takes at most one command, got: ${positionals.join(' ')}`, 'help');
    if (name === undefined) {
      io.stdout.write(globalHelp(commands));
      return EXIT.ok;
    }
    const command = commands.find((candidate) => candidate.name === name);
    if (!command) throw new UsageError(`unknown command "${name}"`);
    io.stdout.write(commandHelp(command));
    return EXIT.ok;
  },
};
