import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { printJson } from '../output.js';
import { cliVersion } from '../version.js';

/** `svc version`: the CLI and Node versions. */
export const versionCommand: Command = {
  name: 'version',
  summary: 'Print the version of svc',
  usage: [''],
  async run({ io, flags }) {
    const version = cliVersion();
    if (flags.json) printJson(io, { version, node: process.versions.node });
    else io.stdout.write(`svc ${version}\n`);
    return EXIT.ok;
  },
};
