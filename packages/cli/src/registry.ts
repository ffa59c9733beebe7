import type { Command } from './command.js';
import { accountsCommand } from './commands/accounts.js';
import { batchCommand } from './commands/batch.js';
import { doctorCommand } from './commands/doctor.js';
import { enrichCommand } from './commands/enrich.js';
import { feedbackCommand } from './commands/feedback.js';
import { geoCommand } from './commands/geo.js';
import { helpCommand } from './commands/help.js';
import { keysCommand } from './commands/keys.js';
import { migrateCommand } from './commands/migrate.js';
import { serveCommand } from './commands/serve.js';
import { verifyCommand } from './commands/verify.js';
import { versionCommand } from './commands/version.js';
import { webhooksCommand } from './commands/webhooks.js';

/** Every `svc` command, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  verifyCommand,
  doctorCommand,
  geoCommand,
  batchCommand,
  enrichCommand,
  feedbackCommand,
  webhooksCommand,
  serveCommand,
  accountsCommand,
  keysCommand,
  migrateCommand,
  versionCommand,
  helpCommand,
];
