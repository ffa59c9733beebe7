import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { erase } from './enrich/erase.js';
import { importDataset } from './enrich/import.js';
import { lookup } from './enrich/lookup.js';
import { enrichPaths } from './enrich/paths.js';
import { ENRICH_SETUP_HELP } from './enrich/setup.js';

/** `svc enrich`: contacts and companies from the user's dataset, websites, DNS and paid providers. */
export const enrichCommand: Command = {
  name: 'enrich',
  summary: 'Enrich contacts and companies (your dataset, websites, DNS, paid providers)',
  usage: [
    'contact --email E | --domain D --name N | --profile-url U [--json]',
    'contact --file emails.txt|csv [--out results.ndjson|csv]',
    'company <domain...> [--json]   |   company --file domains.txt [--out …]',
    'import <file.csv|jsonl> --kind person|company [--dataset path]',
    'erase --email E | --profile-url U | --domain D --name N',
  ],
  details: `Options:
  --file <path>    contact: emails, company: domains, from a .txt (one per line) or .csv (first
                   column) file, at most 10,000; a progress bar and a summary on stderr
  --out <path>     with --file: write .ndjson or .csv (created private, 0600)
  --kind K         import: what each row is, person or company
${ENRICH_SETUP_HELP}
A miss prints "no match" (JSON: "person": null) and is not a failure; an invalid query is
reported per input and makes the exit code 1. erase purges the cache about the person, adds them
to the suppression list (later lookups return no match without asking any adapter) and removes
them from the dataset index.`,
  options: {
    email: { type: 'string' },
    domain: { type: 'string' },
    name: { type: 'string' },
    'profile-url': { type: 'string' },
    file: { type: 'string' },
    out: { type: 'string' },
    kind: { type: 'string' },
    adapters: { type: 'string' },
    dns: { type: 'string' },
    dataset: { type: 'string' },
    cache: { type: 'string' },
    'database-url': { type: 'string' },
    'min-confidence': { type: 'string' },
  },
  async run({ io, flags, values, positionals }) {
    const [action, ...args] = positionals;
    const paths = enrichPaths(io, values);
    switch (action) {
      case 'contact':
      case 'company':
        return lookup(action, io, flags.json, values, args, paths);
      case 'import':
        return importDataset(io, flags.json, values, args, paths);
      case 'erase':
        return erase(io, flags.json, values, args, paths);
      default:
        throw new UsageError(
          action === undefined
            ? 'give an action: contact, company, import or erase'
            : `unknown action "${action}" (contact, company, import or erase)`,
          'enrich',
        );
    }
  },
};
