import { ServiceError } from '@svc/core';
import { verifyPayload, WebhookVerificationError } from '@svc/webhooks';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { printJson } from '../output.js';
import { UsageError } from '../usage-error.js';

/** `svc webhooks verify`: checks a signature header against a body read from stdin. */
export const webhooksCommand: Command = {
  name: 'webhooks',
  summary: 'Check a webhook signature (for receivers debugging)',
  usage: ['verify --secret S [--secret OLD] --header "t=…,v1=…" [--tolerance 300] < body.json'],
  details: `Reads the exact body bytes from stdin. Exit 0 and the event when the signature is valid,
exit 1 and the reason on stderr (missing_header, malformed_header, no_matching_signature,
timestamp_too_old, timestamp_in_future, invalid_body) when not: \`svc: invalid signature (<reason>): …\`,
or with --json {"error":{"code":"invalid_request","message":"invalid signature (<reason>): …"}}.`,
  options: {
    secret: { type: 'string', multiple: true },
    header: { type: 'string' },
    tolerance: { type: 'string' },
  },
  async run({ io, flags, values, positionals }) {
    if (positionals[0] !== 'verify' || positionals.length > 1)
      throw new UsageError('the only subcommand is: verify', 'webhooks');
    const secrets = (values.secret as string[] | undefined) ?? [];
    if (secrets.length === 0) throw new UsageError('give the signing secret with --secret', 'webhooks');
    if (typeof values.header !== 'string')
      throw new UsageError('give the X-Service-Signature value with --header', 'webhooks');
    const tolerance = values.tolerance === undefined ? 300 : Number(values.tolerance);
    if (!Number.isInteger(tolerance) || tolerance < 0) {
      throw new UsageError(`--tolerance must be whole seconds, got "${values.tolerance}"`, 'webhooks');
    }
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin)
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    try {
      const event = verifyPayload(Buffer.concat(chunks), values.header, secrets, {
        toleranceSeconds: tolerance,
      });
      if (flags.json) printJson(io, { valid: true, event });
      else io.stdout.write(`valid: ${event.type ?? 'event'} ${event.id ?? ''}\n`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      // A check that says no is the command's own failure: stderr, the error shape with --json.
      throw new ServiceError('invalid_request', `invalid signature (${error.reason}): ${error.message}`, {
        cause: error,
      });
    }
  },
};
