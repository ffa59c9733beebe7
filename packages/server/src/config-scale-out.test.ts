import { tempDirPerTest } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import { loadServerConfig, printableConfig } from './config.js';
import { resolveServerOptions } from './options.js';
import { configFile, loadError } from './testing/config-load.js';

// The scale-out settings (docs/deployment.md): databaseUrl, redisUrl, redisPrefix and role.

const dir = tempDirPerTest('svc-config-scale-');

const PG = 'postgres://svc:s3cret-pw@db.internal:5432/svc';
const REDIS = 'redis://:r3dis-pw@cache.internal:6379/2';

describe('scale-out settings', () => {
  it('come from the file, SVC_DATABASE_URL / SVC_REDIS_URL / SVC_REDIS_PREFIX / SVC_ROLE and --role, in that order', async () => {
    const file = await configFile(dir(), {
      databaseUrl: 'postgresql://a@old-db/svc',
      redisUrl: REDIS,
      role: 'worker',
    });
    const loaded = await loadServerConfig({
      file,
      cwd: dir(),
      env: { SVC_DATABASE_URL: PG, SVC_REDIS_PREFIX: 'svc-staging', SVC_ROLE: 'all' },
      overrides: { role: 'api' },
    });
    expect(loaded.options).toEqual({
      databaseUrl: PG,
      redisUrl: REDIS,
      redisPrefix: 'svc-staging',
      role: 'api',
    });
    expect(loaded.sources).toEqual({
      databaseUrl: 'SVC_DATABASE_URL',
      redisUrl: file,
      redisPrefix: 'SVC_REDIS_PREFIX',
      role: '--role',
    });
  });

  it('default to SQLite in the data dir, no Redis, the prefix svc and role all', () => {
    expect(resolveServerOptions({})).toMatchObject({
      databaseUrl: null,
      redisUrl: null,
      redisPrefix: 'svc',
      role: 'all',
      limits: { whenRedisUnavailable: 'refuse' },
    });
  });

  it('limits.whenRedisUnavailable (SVC_LIMITS_WHEN_REDIS_UNAVAILABLE) is refuse or allow', async () => {
    const loaded = await loadServerConfig({
      cwd: dir(),
      env: { SVC_DATABASE_URL: PG, SVC_REDIS_URL: REDIS, SVC_LIMITS_WHEN_REDIS_UNAVAILABLE: 'allow' },
    });
    expect(resolveServerOptions(loaded.options).limits.whenRedisUnavailable).toBe('allow');
    const error = await loadError({ cwd: dir(), env: { SVC_LIMITS_WHEN_REDIS_UNAVAILABLE: 'open' } });
    expect(error.message).toBe(
      'SVC_LIMITS_WHEN_REDIS_UNAVAILABLE="open": limits.whenRedisUnavailable must be one of refuse, allow',
    );
  });

  it('limits.usageFlushMs (SVC_LIMITS_USAGE_FLUSH_MS) is 250 by default, 0 writes each call at once, and refuses other values', async () => {
    expect(
      resolveServerOptions((await loadServerConfig({ cwd: dir(), env: {} })).options).limits.usageFlushMs,
    ).toBe(250);
    const off = await loadServerConfig({ cwd: dir(), env: { SVC_LIMITS_USAGE_FLUSH_MS: '0' } });
    expect(resolveServerOptions(off.options).limits.usageFlushMs).toBe(0);
    const negative = await loadError({ cwd: dir(), env: { SVC_LIMITS_USAGE_FLUSH_MS: '-5' } });
    expect(negative.message).toMatch(/^SVC_LIMITS_USAGE_FLUSH_MS="-5": limits\.usageFlushMs must be/);
    const huge = await loadError({ cwd: dir(), env: { SVC_LIMITS_USAGE_FLUSH_MS: '600000' } });
    expect(huge.message).toMatch(/limits\.usageFlushMs must be .*60000/);
  });

  it('accept a socket directory for PostgreSQL and rediss:// for Redis over TLS', async () => {
    const loaded = await loadServerConfig({
      cwd: dir(),
      env: {
        SVC_DATABASE_URL: 'postgresql:///svc?host=/var/run/postgresql',
        SVC_REDIS_URL: 'rediss://cache.internal:6380',
        SVC_ROLE: 'worker',
      },
    });
    expect(loaded.options.role).toBe('worker');
  });

  it('--print-config masks the passwords in both URLs', async () => {
    const env = { SVC_DATABASE_URL: PG, SVC_REDIS_URL: REDIS };
    const loaded = await loadServerConfig({ cwd: dir(), env });
    const printed = printableConfig(resolveServerOptions(loaded.options), loaded, env);
    const text = JSON.stringify(printed);
    expect(text).not.toContain('s3cret-pw');
    expect(text).not.toContain('r3dis-pw');
    expect(printed.options).toMatchObject({
      databaseUrl: 'postgres://svc:********@db.internal:5432/svc',
      redisUrl: 'redis://:********@cache.internal:6379/2',
      role: 'all',
    });
  });
});

describe('bad scale-out settings: the error says what is wrong and never shows a password', () => {
  it.each([
    [
      { SVC_DATABASE_URL: 'mysql://root:hunter2@db/svc' },
      'SVC_DATABASE_URL',
      'SVC_DATABASE_URL="mysql://root:********@db/svc": databaseUrl must be a URL such as postgres://user:password@host:5432/database (postgres:// or postgresql://, not mysql://)',
    ],
    [
      { SVC_DATABASE_URL: 'db.internal:5432' },
      'SVC_DATABASE_URL',
      'databaseUrl must be a URL such as postgres://',
    ],
    [{ SVC_DATABASE_URL: 'postgres:///svc' }, 'SVC_DATABASE_URL', '(it names no host)'],
    [
      { SVC_DATABASE_URL: PG, SVC_REDIS_URL: 'http://:hunter2@cache:6379' },
      'SVC_REDIS_URL',
      'SVC_REDIS_URL="http://:********@cache:6379": redisUrl must be a URL such as redis://:password@host:6379/0 (rediss:// for TLS) (redis:// or rediss://, not http://)',
    ],
    [
      { SVC_DATABASE_URL: PG, SVC_REDIS_URL: 'redis://cache:6379/queues' },
      'SVC_REDIS_URL',
      '(the path is a database number, if any)',
    ],
    [{ SVC_DATABASE_URL: PG, SVC_REDIS_PREFIX: 'svc:prod' }, 'SVC_REDIS_PREFIX', 'no `:`'],
    [{ SVC_ROLE: 'scheduler' }, 'SVC_ROLE', 'SVC_ROLE="scheduler": role must be one of api, worker, all'],
    [
      { SVC_ROLE: 'worker' },
      'role',
      'role worker (SVC_ROLE) needs databaseUrl: with the SQLite default the batch store and the control plane are files in one data dir',
    ],
    [{ SVC_ROLE: 'api' }, 'role', 'role api (SVC_ROLE) needs databaseUrl'],
    [
      { SVC_REDIS_URL: 'redis://cache:6379' },
      'redisUrl',
      'redisUrl is set (SVC_REDIS_URL) but databaseUrl is not',
    ],
  ])('%j', async (env, key, message) => {
    const error = await loadError({ env, cwd: dir() });
    expect(error.key).toBe(key);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('hunter2');
  });

  it('--role worker on SQLite names the flag', async () => {
    const error = await loadError({ env: {}, cwd: dir(), overrides: { role: 'worker' } });
    expect(error.message).toContain('role worker (--role) needs databaseUrl');
  });

  it('a snake_case key in the file is pointed to its camelCase name', async () => {
    const file = await configFile(dir(), { database_url: PG });
    const error = await loadError({ file, env: {}, cwd: dir() });
    expect(error.key).toBe('database_url');
    expect(error.message).toContain('unknown option database_url (did you mean databaseUrl?)');
    expect(error.message).not.toContain('s3cret-pw');
  });

  it('a bad URL in the file: the file, the key and the masked value', async () => {
    const file = await configFile(dir(), { databaseUrl: 'postgres//svc:s3cret-pw@db/svc' });
    const error = await loadError({ file, env: {}, cwd: dir() });
    expect(error.key).toBe('databaseUrl');
    expect(error.message).toContain(`${file}: databaseUrl must be a URL such as postgres://`);
  });
});
