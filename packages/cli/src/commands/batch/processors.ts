import {
  createEnrichCompanyProcessor,
  createEnrichContactProcessor,
  createGeoIpProcessor,
  createVerifyEmailProcessor,
  type Processor,
} from '@svc/batch-runner';
import { type BatchJobType, jobTypeList } from '@svc/core';
import { createSqliteResultCache, createVerifier } from '@svc/email-verifier';
import type { Command } from '../../command.js';
import { openCliGeoResolver } from '../../geo-data.js';
import type { CliIo } from '../../io.js';
import { cliSqliteDriver } from '../../sqlite-driver.js';
import { UsageError } from '../../usage-error.js';
import { VERIFIER_FLAGS, verifierSettings } from '../../verifier-flags.js';
import { enrichPaths } from '../enrich/paths.js';
import { openCliEnricher } from '../enrich/setup.js';

/** `svc enrich`'s setup flags, taken by `svc batch run --type enrich_*` (`--dns` is shared with the verifier's). */
export const ENRICH_FLAGS = {
  adapters: { type: 'string' },
  dataset: { type: 'string' },
  cache: { type: 'string' },
  'min-confidence': { type: 'string' },
} as const satisfies NonNullable<Command['options']>;

/** A job type's processor for one run, and what to close after it. */
export interface OpenedProcessor {
  processor: Processor;
  /** verify_email: the verifier's resolver health, to say why records ended `dns_unavailable`. */
  resolverHealth?: () => { message: string } | null;
  close(): Promise<void>;
}

interface RunContext {
  io: CliIo;
  values: Record<string, unknown>;
  /** The job database: verify_email keeps its probed results in the same file. */
  dbPath: string;
}

/** Which family of flags a job type takes beside the common ones. */
type FlagFamily = 'verifier' | 'enricher' | 'none';

/** Each family's own flags (`--dns` is the verifier's and the enricher's DNS server alike). */
const FAMILY_FLAGS: Record<Exclude<FlagFamily, 'none'>, readonly string[]> = {
  verifier: [...Object.keys(VERIFIER_FLAGS), 'fresh'],
  enricher: [...Object.keys(ENRICH_FLAGS), 'dns'],
};

interface Opener {
  flags: FlagFamily;
  open(context: RunContext): Promise<OpenedProcessor>;
}

const openEnricher = async ({ io, values }: RunContext) =>
  openCliEnricher(io, values, enrichPaths(io, values));

/**
 * How `svc batch run` runs each job type: a record over every type of `@svc/core`'s registry, so
 * a new job type does not typecheck here until the CLI can run it.
 */
const OPENERS: Record<BatchJobType, Opener> = {
  verify_email: {
    flags: 'verifier',
    async open({ values, dbPath }) {
      const verifier = verifierSettings(values, 'batch');
      // Probed results are kept in the job database's file, so a later run of the same list on
      // it does not probe those addresses again.
      const resultCache = await createSqliteResultCache({ path: dbPath, driver: await cliSqliteDriver() });
      const emailVerifier = createVerifier({ ...verifier.options, resultCache });
      return {
        processor: createVerifyEmailProcessor(emailVerifier, {
          ...verifier.checks,
          fresh: values.fresh === true,
        }),
        resolverHealth: () => emailVerifier.resolverHealth(),
        close: () => resultCache.close(),
      };
    },
  },
  geo_ip: {
    flags: 'none',
    async open({ io }) {
      return { processor: createGeoIpProcessor(await openCliGeoResolver(io, [])), close: async () => {} };
    },
  },
  enrich_contact: {
    flags: 'enricher',
    async open(context) {
      const cli = await openEnricher(context);
      return { processor: createEnrichContactProcessor(cli.enricher), close: () => cli.close() };
    },
  },
  enrich_company: {
    flags: 'enricher',
    async open(context) {
      const cli = await openEnricher(context);
      return { processor: createEnrichCompanyProcessor(cli.enricher), close: () => cli.close() };
    },
  },
};

/** The job types that take a family of flags, for help and messages: `a or b`. */
export function typesTaking(family: FlagFamily): string {
  return (Object.keys(OPENERS) as BatchJobType[])
    .filter((type) => OPENERS[type].flags === family)
    .join(' or ');
}

/** Refuses a flag of another family than the type's own. */
function checkFlags(type: BatchJobType, values: Record<string, unknown>): void {
  const own = OPENERS[type].flags;
  for (const [family, flags] of Object.entries(FAMILY_FLAGS) as [FlagFamily, readonly string[]][]) {
    if (family === own) continue;
    const given = flags.find(
      (flag) => values[flag] !== undefined && !(own !== 'none' && FAMILY_FLAGS[own].includes(flag)),
    );
    if (given) throw new UsageError(`--${given} applies to --type ${typesTaking(family)} only`, 'batch');
  }
}

/** The job type `--type` names, with the run's other flags checked against it. */
export function runType(values: Record<string, unknown>): BatchJobType {
  const type = values.type;
  if (typeof type !== 'string' || !Object.hasOwn(OPENERS, type))
    throw new UsageError(`--type must be one of ${jobTypeList()}`, 'batch');
  checkFlags(type as BatchJobType, values);
  return type as BatchJobType;
}

/** Checks the type's own flags (without opening anything). */
export function checkRunSettings(type: BatchJobType, values: Record<string, unknown>): void {
  if (OPENERS[type].flags === 'verifier') verifierSettings(values, 'batch');
}

/** Opens the processor of `type` for this run. */
export function openProcessor(type: BatchJobType, context: RunContext): Promise<OpenedProcessor> {
  return OPENERS[type].open(context);
}
