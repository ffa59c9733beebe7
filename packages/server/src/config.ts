import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { checkProxyPoolOptions, MAX_PROXIES } from '@svc/email-verifier';
import { checkPlanId, VALUE_CHECKS, type ValueCheck } from './config-checks.js';
import {
  OTHER_SVC_VARIABLES,
  PLAN_PATCH_SCHEMA,
  SERVER_SETTINGS_SCHEMA,
  type ServerOptions,
} from './config-schema.js';
import { PLAN_GATED_ENDPOINTS } from './endpoints.js';
import { DEFAULT_PLANS, type ResolvedServerOptions } from './options.js';

/**
 * `svc serve`'s configuration: one JSON file in the shape of `ServerOptions`, then `SVC_*`
 * environment variables over it, then the command line's `--host`/`--port` over both. Every
 * value is checked here, so a typo stops the server at start with a message naming the key and
 * the value instead of surfacing later as a strange behaviour.
 */

/** A bad configuration value; `key` is the file path (`limits.jsonBodyBytes`) or the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
  }
}

export interface LoadConfigInput {
  /** The config file (`--config`); else `SVC_CONFIG`; else none. */
  file?: string | null;
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** What relative paths from the environment and flags are resolved against. @default process.cwd() */
  cwd?: string;
  /** Highest precedence: the command line's `--host`, `--port` and `--role`. */
  overrides?: Pick<ServerOptions, 'host' | 'port' | 'role'>;
  /**
   * Highest precedence too: `svc serve`'s flags as typed (`{ '--port': '8080' }`), read by the
   * schema's rules like a variable's text. The flags are the settings' `x-flag`s (`serveFlags()`).
   */
  flags?: Record<string, string>;
}

export interface LoadedConfig {
  options: ServerOptions;
  /** The absolute path of the file read, or null. */
  file: string | null;
  /** Where each set value came from, by key (`port` → `SVC_PORT`). Unlisted keys are defaults. */
  sources: Record<string, string>;
  /** Things worth telling the operator that do not stop the start (an unknown `SVC_` variable). */
  warnings: string[];
}

type Kind =
  | { type: 'integer'; min: number; max: number }
  | { type: 'boolean' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'string'; check: (value: string) => string | null }
  | { type: 'list'; check: (value: string) => string | null }
  | { type: 'path' }
  | { type: 'paths' }
  | { type: 'optional-path'; check: (value: string) => string | null }
  /** SOCKS5 proxy entries: objects, or URL strings (a variable's comma list) taken as `{ url }`. */
  | { type: 'proxies' };

/** One leaf of the settings schema: where it sits, its schema, and how it is checked. */
export interface Setting {
  path: readonly string[];
  /** The leaf's JSON Schema, with the annotations config-schema.ts describes. */
  schema: SettingSchema;
  kind: Kind;
}

/** The parts of a leaf's schema the loader and the README table read. */
export interface SettingSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  enum?: readonly string[];
  items?: SettingSchema;
  anyOf?: readonly SettingSchema[];
  properties?: Record<string, SettingSchema>;
  patternProperties?: Record<string, SettingSchema>;
  description?: string;
  default?: unknown;
  'x-check'?: ValueCheck;
  'x-kind'?: 'path' | 'paths' | 'proxies';
  'x-default'?: string;
  'x-flag'?: string;
}

const MAX_INT = Number.MAX_SAFE_INTEGER;

/** How a leaf's values are checked, read from its schema. */
function kindOf(schema: SettingSchema, key: string): Kind {
  const checkOf = (leaf: SettingSchema | undefined) => {
    const name = leaf?.['x-check'];
    return name === undefined ? () => null : VALUE_CHECKS[name];
  };
  if (schema['x-kind'] === 'path') return { type: 'path' };
  if (schema['x-kind'] === 'proxies') return { type: 'proxies' };
  if (schema.enum) return { type: 'enum', values: schema.enum };
  if (schema.anyOf)
    return { type: 'optional-path', check: checkOf(schema.anyOf.find((s) => s.type === 'string')) };
  switch (schema.type) {
    case 'integer':
      return { type: 'integer', min: schema.minimum ?? 0, max: schema.maximum ?? MAX_INT };
    case 'boolean':
      return { type: 'boolean' };
    case 'string':
      return { type: 'string', check: checkOf(schema) };
    case 'array':
      return schema.items?.['x-check'] === undefined
        ? { type: 'paths' }
        : { type: 'list', check: checkOf(schema.items) };
  }
  throw new Error(`config-schema.ts: the setting ${key} has a schema the loader cannot read`);
}

/** Every leaf of the schema except `plans` (a map, handled on its own), in the schema's order. */
function settingsOf(schema: SettingSchema, prefix: readonly string[] = []): Setting[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, child]) => {
    const path = [...prefix, name];
    if (child.patternProperties) return []; // plans
    if (child.type === 'object') return settingsOf(child, path);
    return [{ path, schema: child, kind: kindOf(child, path.join('.')) }];
  });
}

/** The settings of `svc serve`, from SERVER_SETTINGS_SCHEMA. */
export const SETTINGS: readonly Setting[] = settingsOf(SERVER_SETTINGS_SCHEMA as unknown as SettingSchema);

const PLAN_FIELDS = Object.keys(PLAN_PATCH_SCHEMA.properties) as (keyof typeof PLAN_PATCH_SCHEMA.properties &
  string)[];
type PlanField = (typeof PLAN_FIELDS)[number];

/** `limits.jsonBodyBytes` → `SVC_LIMITS_JSON_BODY_BYTES`. */
export function envName(path: readonly string[]): string {
  return `SVC_${path.map((part) => part.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()).join('_')}`;
}

/** Every environment variable the server reads, with the option it sets (for the README and tests). */
export function environmentVariables(): { name: string; key: string }[] {
  return [
    ...SETTINGS.map((setting) => ({ name: envName(setting.path), key: setting.path.join('.') })),
    ...PLAN_FIELDS.map((field) => ({
      name: `SVC_PLAN_<ID>_${field.toUpperCase()}`,
      key: `plans.<id>.${field}`,
    })),
  ];
}

/** Reads the file (if any), the environment and the overrides into checked ServerOptions. */
export async function loadServerConfig(input: LoadConfigInput = {}): Promise<LoadedConfig> {
  const env = input.env ?? process.env;
  const cwd = input.cwd ?? process.cwd();
  const sources: Record<string, string> = {};
  const fileName = input.file ?? (env.SVC_CONFIG || null);
  let options: ServerOptions = {};
  let file: string | null = null;
  if (fileName !== null) {
    file = resolve(cwd, fileName);
    options = parseServerOptions(await readJson(file), { label: file, baseDir: dirname(file) });
    for (const key of setKeys(options)) sources[key] = file;
  }
  const fromEnv = environmentOverrides(env, cwd);
  options = mergeOptions(options, fromEnv.options);
  Object.assign(sources, fromEnv.sources);
  if (input.overrides) {
    const flags = parseServerOptions(input.overrides, { label: 'command line', baseDir: cwd });
    options = mergeOptions(options, flags);
    for (const key of setKeys(flags)) sources[key] = `--${key}`;
  }
  if (input.flags) {
    const fromFlags = flagOverrides(input.flags, cwd);
    options = mergeOptions(options, fromFlags.options);
    Object.assign(sources, fromFlags.sources);
  }
  checkCombination(options, (key) => sources[key] ?? 'config');
  return { options, file, sources, warnings: fromEnv.warnings };
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(error);
    throw new ConfigError(`cannot read the config file ${file}: ${why}`, 'config');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConfigError(`the config file ${file} is not valid JSON: ${(error as Error).message}`, 'config');
  }
}

interface ParseContext {
  /** Names where the value came from in messages: the file's path, or `command line`. */
  label: string;
  /** Relative paths are resolved against this folder (the config file's). */
  baseDir: string;
}

/** Checks a config object (the file's content) and returns it with paths made absolute. */
export function parseServerOptions(value: unknown, context: ParseContext): ServerOptions {
  if (!isPlainObject(value))
    throw new ConfigError(`${context.label}: the configuration must be a JSON object`, 'config');
  const out: Record<string, unknown> = {};
  checkKeys(value, [], context);
  for (const setting of SETTINGS) {
    const raw = getPath(value, setting.path);
    if (raw === undefined) continue;
    const key = setting.path.join('.');
    const problem = (why: string) =>
      new ConfigError(`${context.label}: ${key} ${why}, got ${show(maskSecrets(raw))}`, key);
    setPath(out, setting.path, checkValue(setting.kind, raw, problem, context.baseDir));
  }
  if (value.plans !== undefined) out.plans = parsePlans(value.plans, context.label);
  return out as ServerOptions;
}

/**
 * Checks options given in code (`createServer({ options })`) by the config file's rules and the
 * rules between settings, so a bad option stops the server with a ConfigError naming its key
 * instead of surfacing later as a strange behaviour. The options themselves are used as given.
 */
export function checkServerOptions(options: ServerOptions, label = 'createServer options'): void {
  const parsed = parseServerOptions(options, { label, baseDir: process.cwd() });
  checkCombination(parsed, () => label);
}

/** Unknown keys are refused: a misspelt option would otherwise be ignored in silence. */
function checkKeys(value: Record<string, unknown>, prefix: string[], context: ParseContext): void {
  for (const [name, child] of Object.entries(value)) {
    const path = [...prefix, name];
    const key = path.join('.');
    if (prefix.length === 0 && name === 'plans') continue;
    const leaf = SETTINGS.some((setting) => samePath(setting.path, path));
    const group = SETTINGS.some(
      (setting) => setting.path.length > path.length && startsWith(setting.path, path),
    );
    if (leaf) continue;
    if (!group) {
      const known = SETTINGS.filter((s) => samePath(s.path.slice(0, prefix.length), prefix))
        .map((s) => s.path[prefix.length])
        .filter((part, index, all) => all.indexOf(part) === index);
      if (prefix.length === 0) known.push('plans');
      // `database_url` for `databaseUrl`: the file's keys are camelCase, the variables upper snake.
      const camel = name.replace(/[_-]([a-z])/g, (_, c: string) => c.toUpperCase());
      const hint = camel !== name && known.includes(camel) ? ` (did you mean ${camel}?)` : '';
      throw new ConfigError(
        `${context.label}: unknown option ${key}${hint} (known here: ${known.join(', ')})`,
        key,
      );
    }
    if (!isPlainObject(child))
      throw new ConfigError(`${context.label}: ${key} must be an object, got ${show(child)}`, key);
    checkKeys(child, path, context);
  }
}

function checkValue(
  kind: Kind,
  raw: unknown,
  problem: (why: string) => ConfigError,
  baseDir: string,
): unknown {
  switch (kind.type) {
    case 'integer':
      if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < kind.min || raw > kind.max)
        throw problem(
          kind.max === MAX_INT
            ? `must be an integer of at least ${kind.min}`
            : `must be an integer from ${kind.min} to ${kind.max}`,
        );
      return raw;
    case 'boolean':
      if (typeof raw !== 'boolean') throw problem('must be true or false');
      return raw;
    case 'enum':
      if (typeof raw !== 'string' || !kind.values.includes(raw))
        throw problem(`must be one of ${kind.values.join(', ')}`);
      return raw;
    case 'string': {
      if (typeof raw !== 'string') throw problem('must be a string');
      const why = kind.check(raw);
      if (why) throw problem(why);
      return raw;
    }
    case 'list': {
      if (!Array.isArray(raw) || raw.some((item) => typeof item !== 'string'))
        throw problem('must be an array of strings');
      for (const item of raw as string[]) {
        const why = kind.check(item);
        if (why) throw problem(`has ${show(item)}, which ${why}`);
      }
      return [...(raw as string[])];
    }
    case 'path':
      if (typeof raw !== 'string' || raw === '') throw problem('must be a non-empty path');
      return absolute(baseDir, raw);
    case 'paths':
      if (!Array.isArray(raw) || raw.some((item) => typeof item !== 'string' || item === ''))
        throw problem('must be an array of non-empty paths');
      return (raw as string[]).map((item) => absolute(baseDir, item));
    case 'proxies': {
      if (!Array.isArray(raw) || raw.length > MAX_PROXIES)
        throw problem(
          `must be an array of at most ${MAX_PROXIES} proxies ({ url, label?, providers?, perHostConcurrency?, sessionsPerMinute? })`,
        );
      return raw.map((entry) => (typeof entry === 'string' ? { url: entry } : entry));
    }
    case 'optional-path': {
      if (raw === null) return null;
      if (typeof raw !== 'string') throw problem('must be a string or null');
      const why = kind.check(raw);
      if (why) throw problem(why);
      return raw;
    }
  }
}

function parsePlans(raw: unknown, label: string): NonNullable<ServerOptions['plans']> {
  if (!isPlainObject(raw)) throw new ConfigError(`${label}: plans must be an object of plans by id`, 'plans');
  const plans: NonNullable<ServerOptions['plans']> = {};
  for (const [id, patch] of Object.entries(raw)) {
    const idProblem = checkPlanId(id);
    if (idProblem) throw new ConfigError(`${label}: plans.${id}: the plan id ${idProblem}`, `plans.${id}`);
    if (!isPlainObject(patch))
      throw new ConfigError(`${label}: plans.${id} must be an object, got ${show(patch)}`, `plans.${id}`);
    const plan: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(patch)) {
      const key = `plans.${id}.${field}`;
      if (!(PLAN_FIELDS as readonly string[]).includes(field))
        throw new ConfigError(`${label}: unknown option ${key} (known here: ${PLAN_FIELDS.join(', ')})`, key);
      const why = checkPlanField(field as PlanField, value);
      if (why) throw new ConfigError(`${label}: ${key} ${why}, got ${show(value)}`, key);
      plan[field] = Array.isArray(value) ? [...value] : value;
    }
    plans[id] = plan;
  }
  return plans;
}

function checkPlanField(field: PlanField, value: unknown): string | null {
  switch (field) {
    case 'name':
      return typeof value === 'string' && value.trim() !== '' ? null : 'must be a non-empty string';
    case 'rate_per_second':
      return typeof value === 'number' && Number.isFinite(value) && value > 0
        ? null
        : 'must be a number above 0';
    case 'burst':
      return typeof value === 'number' && Number.isInteger(value) && value >= 1
        ? null
        : 'must be an integer of at least 1';
    case 'monthly_allowance':
      return value === null || (typeof value === 'number' && Number.isInteger(value) && value >= 0)
        ? null
        : 'must be an integer of at least 0, or null for unlimited';
    case 'endpoints': {
      if (value === null) return null;
      if (!Array.isArray(value)) return 'must be an array of endpoint ids, or null for all';
      const bad = value.find((item) => !(PLAN_GATED_ENDPOINTS as readonly unknown[]).includes(item));
      return bad === undefined
        ? null
        : `has ${show(bad)}, which is not an endpoint a plan can limit (${PLAN_GATED_ENDPOINTS.join(', ')})`;
    }
    case 'bill_company_misses':
      return typeof value === 'boolean' ? null : 'must be true or false';
  }
}

/** Options set by `SVC_*` variables, checked with the same rules as the file's. */
export function environmentOverrides(
  env: Record<string, string | undefined>,
  cwd: string,
): { options: ServerOptions; sources: Record<string, string>; warnings: string[] } {
  const out: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  const warnings: string[] = [];
  const known = new Set(OTHER_SVC_VARIABLES.map((variable) => variable.name));
  for (const setting of SETTINGS) {
    const name = envName(setting.path);
    known.add(name);
    const text = env[name];
    if (text === undefined) continue;
    const key = setting.path.join('.');
    const problem = (why: string) =>
      new ConfigError(`${name}=${show(maskSecrets(text))}: ${key} ${why}`, name);
    setPath(out, setting.path, checkValue(setting.kind, fromText(setting.kind, text, problem), problem, cwd));
    sources[key] = name;
  }
  const plans: Record<string, Record<string, unknown>> = {};
  for (const [name, text] of Object.entries(env)) {
    if (!name.startsWith('SVC_PLAN_') || text === undefined) continue;
    const field = PLAN_FIELDS.find((candidate) => name.endsWith(`_${candidate.toUpperCase()}`));
    const id = field ? name.slice('SVC_PLAN_'.length, -(field.length + 1)).toLowerCase() : '';
    if (!field || id === '') {
      throw new ConfigError(
        `${name}: not a plan setting; use SVC_PLAN_<ID>_<FIELD> with FIELD one of ${PLAN_FIELDS.map((f) => f.toUpperCase()).join(', ')}`,
        name,
      );
    }
    known.add(name);
    const key = `plans.${id}.${field}`;
    const idProblem = checkPlanId(id);
    if (idProblem) throw new ConfigError(`${name}: the plan id ${show(id)} ${idProblem}`, name);
    const value = planFieldFromText(field, text);
    const why = checkPlanField(field, value);
    if (why) throw new ConfigError(`${name}=${show(text)}: ${key} ${why}`, name);
    const plan = plans[id] ?? {};
    plan[field] = value;
    plans[id] = plan;
    sources[key] = name;
  }
  if (Object.keys(plans).length > 0) out.plans = plans;
  for (const name of Object.keys(env)) {
    if (name.startsWith('SVC_') && !known.has(name))
      warnings.push(`${name} is not a setting svc serve knows; it is ignored`);
  }
  return { options: out as ServerOptions, sources, warnings };
}

/** The `svc serve` flags that set a setting (`--host`, `--port`, `--role`), from the schema. */
export function serveFlags(): { flag: string; key: string }[] {
  return SETTINGS.flatMap((setting) => {
    const flag = setting.schema['x-flag'];
    return flag === undefined ? [] : [{ flag, key: setting.path.join('.') }];
  });
}

/** Options set by flags' text, checked with the same rules as a variable's. */
function flagOverrides(
  flags: Record<string, string>,
  cwd: string,
): { options: ServerOptions; sources: Record<string, string> } {
  const out: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const [flag, text] of Object.entries(flags)) {
    const setting = SETTINGS.find((candidate) => candidate.schema['x-flag'] === flag);
    if (!setting) throw new ConfigError(`${flag} is not a flag of a setting`, flag);
    const key = setting.path.join('.');
    const problem = (why: string) =>
      new ConfigError(`${flag}=${show(maskSecrets(text))}: ${key} ${why}`, flag);
    setPath(out, setting.path, checkValue(setting.kind, fromText(setting.kind, text, problem), problem, cwd));
    sources[key] = flag;
  }
  return { options: out as ServerOptions, sources };
}

/** A variable's boolean: true/false, 1/0, yes/no, on/off (any case); undefined for anything else. */
function parseBooleanText(text: string): boolean | undefined {
  const lower = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  return undefined;
}

/** Turns a variable's text into the JSON value the file would hold. */
function fromText(kind: Kind, text: string, problem: (why: string) => ConfigError): unknown {
  const trimmed = text.trim();
  switch (kind.type) {
    case 'integer':
      if (!/^\d+$/.test(trimmed)) throw problem('must be a whole number');
      return Number(trimmed);
    case 'boolean': {
      const value = parseBooleanText(trimmed);
      if (value === undefined) throw problem('must be true or false (or 1/0, yes/no, on/off)');
      return value;
    }
    case 'list':
    case 'paths':
      return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
    case 'proxies':
      // A JSON array for the full form, or a comma list of URLs.
      if (trimmed.startsWith('[')) {
        try {
          return JSON.parse(trimmed) as unknown;
        } catch {
          throw problem('must be a JSON array or a comma-separated list of socks5:// URLs');
        }
      }
      return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
    case 'optional-path':
      return trimmed === '' || trimmed === 'off' ? null : trimmed;
    default:
      return trimmed;
  }
}

function planFieldFromText(field: PlanField, text: string): unknown {
  const trimmed = text.trim();
  switch (field) {
    case 'name':
      return trimmed;
    case 'rate_per_second':
    case 'burst':
      return trimmed === '' ? Number.NaN : Number(trimmed);
    case 'monthly_allowance':
      return trimmed === 'unlimited' ? null : /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
    case 'endpoints':
      return trimmed === 'all' ? null : trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
    case 'bill_company_misses':
      return parseBooleanText(trimmed) ?? trimmed;
  }
}

/** Rules between settings, checked after every source is merged. */
function checkCombination(options: ServerOptions, sourceOf: (key: string) => string): void {
  const cert = options.tls?.certFile;
  const key = options.tls?.keyFile;
  if ((cert === undefined) !== (key === undefined)) {
    const given = cert === undefined ? 'tls.keyFile' : 'tls.certFile';
    const missing = cert === undefined ? 'tls.certFile' : 'tls.keyFile';
    throw new ConfigError(
      `${given} is set (${sourceOf(given)}) but ${missing} is not: HTTPS needs both the certificate and its key`,
      missing,
    );
  }
  const owner = options.ownerPlan;
  if (
    owner !== undefined &&
    !Object.hasOwn(DEFAULT_PLANS, owner) &&
    !Object.hasOwn(options.plans ?? {}, owner)
  ) {
    const ids = [...new Set([...Object.keys(DEFAULT_PLANS), ...Object.keys(options.plans ?? {})])];
    throw new ConfigError(
      `ownerPlan ${show(owner)} (${sourceOf('ownerPlan')}) is not a plan; plans: ${ids.join(', ')}`,
      'ownerPlan',
    );
  }
  const role = options.role ?? 'all';
  if (options.databaseUrl === undefined) {
    if (role !== 'all')
      throw new ConfigError(
        `role ${role} (${sourceOf('role')}) needs databaseUrl: with the SQLite default the batch store and the control plane are files in one data dir, held by one process that serves the API and runs the batch work together (role all); an api and a worker process share PostgreSQL (docs/deployment.md)`,
        'role',
      );
    if (options.redisUrl !== undefined)
      throw new ConfigError(
        `redisUrl is set (${sourceOf('redisUrl')}) but databaseUrl is not: Redis hands batch work to workers and shares rate limits between API processes, which need their state in PostgreSQL; with SQLite there is one process and no Redis (docs/deployment.md)`,
        'redisUrl',
      );
  }
  checkProxies(options, sourceOf);
  const limits = options.limits;
  if (limits?.probeRequestTimeoutMs !== undefined && limits.requestTimeoutMs !== undefined) {
    if (limits.probeRequestTimeoutMs < limits.requestTimeoutMs)
      throw new ConfigError(
        `limits.probeRequestTimeoutMs (${limits.probeRequestTimeoutMs}) is shorter than limits.requestTimeoutMs (${limits.requestTimeoutMs}): a probing request needs the longer deadline`,
        'limits.probeRequestTimeoutMs',
      );
  }
}

/** The proxy pool as the verifier will build it; its messages name entries by index, never by URL. */
function checkProxies(options: ServerOptions, sourceOf: (key: string) => string): void {
  const smtp = options.smtp;
  if (!smtp?.proxies?.length) return;
  try {
    checkProxyPoolOptions({
      proxies: smtp.proxies,
      proxySelection: smtp.proxySelection,
      proxyCooldown: smtp.proxyCooldown,
    });
  } catch (error) {
    throw new ConfigError(`${(error as Error).message} (${sourceOf('smtp.proxies')})`, 'smtp.proxies');
  }
}

/** Deep merge: objects merge key by key, anything else (arrays included) is replaced. */
export function mergeOptions(base: ServerOptions, over: ServerOptions): ServerOptions {
  return mergeObjects(base as Record<string, unknown>, over as Record<string, unknown>) as ServerOptions;
}

function mergeObjects(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeObjects(current, value) : value;
  }
  return out;
}

const MASK = '********';

/**
 * The effective configuration as `svc serve --print-config` shows it: every option with its
 * default applied, where the set ones came from, and secrets masked (the secret key itself
 * never appears; only where it comes from).
 */
export function printableConfig(
  resolved: ResolvedServerOptions,
  loaded: Pick<LoadedConfig, 'file' | 'sources'>,
  env: Record<string, string | undefined> = process.env,
): Record<string, unknown> {
  return {
    config_file: loaded.file,
    options: maskSecrets(resolved),
    secret_key: env.SVC_SECRET_KEY
      ? `${MASK} (SVC_SECRET_KEY)`
      : `kept in ${resolve(resolved.dataDir, 'secret.key')}`,
    sources: loaded.sources,
  };
}

/** Masks values under secret-looking names and passwords inside URLs, at any depth. */
export function maskSecrets(value: unknown, name = ''): unknown {
  if (typeof value === 'string') {
    if (/secret|password|passphrase|token|licen[cs]e_?key|api_?key/i.test(name) && value !== '') return MASK;
    return value.replace(/(\/\/[^/:@\s]*:)[^@/\s]+@/g, `$1${MASK}@`);
  }
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item, name));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskSecrets(item, key)]));
  return value;
}

// --- small helpers ---

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function getPath(value: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = value;
  for (const part of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = target;
  for (const part of path.slice(0, -1)) {
    const next = current[part];
    if (isPlainObject(next)) current = next;
    else {
      const created: Record<string, unknown> = {};
      current[part] = created;
      current = created;
    }
  }
  current[path[path.length - 1] as string] = value;
}

function setKeys(options: ServerOptions): string[] {
  const keys = SETTINGS.filter((s) => getPath(options as Record<string, unknown>, s.path) !== undefined).map(
    (s) => s.path.join('.'),
  );
  for (const [id, plan] of Object.entries(options.plans ?? {}))
    for (const field of Object.keys(plan)) keys.push(`plans.${id}.${field}`);
  return keys;
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, index) => part === b[index]);
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((part, index) => path[index] === part);
}

function absolute(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

function show(value: unknown): string {
  // A database or Redis URL's password must not reach a terminal or a log in an error message.
  const text = JSON.stringify(maskSecrets(value));
  if (text === undefined) return String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
