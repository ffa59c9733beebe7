import { join } from 'node:path';
import { tempDirPerTest } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import {
  environmentVariables,
  envName,
  loadServerConfig,
  maskSecrets,
  printableConfig,
  SETTINGS,
} from './config.js';
import { resolveServerOptions } from './options.js';
import { configFile, loadError } from './testing/config-load.js';

const dir = tempDirPerTest('svc-config-');

describe('loadServerConfig', () => {
  it('with no file and no SVC_ variables gives empty options (the defaults apply)', async () => {
    const loaded = await loadServerConfig({ env: { PATH: '/bin' }, cwd: dir() });
    expect(loaded).toEqual({ options: {}, file: null, sources: {}, warnings: [] });
    expect(resolveServerOptions(loaded.options).port).toBe(8080);
  });

  it('layers file < SVC_* environment < command line and records where each value came from', async () => {
    const file = await configFile(dir(), {
      host: '0.0.0.0',
      port: 9000,
      logLevel: 'warn',
      limits: { jsonBodyBytes: 2048, requestTimeoutMs: 5000 },
      smtp: { heloName: 'probe.example.com', mailFrom: 'probe@example.com' },
    });
    const loaded = await loadServerConfig({
      file,
      cwd: dir(),
      env: { SVC_PORT: '9100', SVC_LIMITS_JSON_BODY_BYTES: '4096', SVC_SMTP_ALLOW_PRIVATE_MX: 'yes' },
      overrides: { port: 9200 },
    });
    expect(loaded.options).toEqual({
      host: '0.0.0.0',
      port: 9200,
      logLevel: 'warn',
      limits: { jsonBodyBytes: 4096, requestTimeoutMs: 5000 },
      smtp: { heloName: 'probe.example.com', mailFrom: 'probe@example.com', allowPrivateMx: true },
    });
    expect(loaded.sources).toMatchObject({
      host: file,
      port: '--port',
      'limits.jsonBodyBytes': 'SVC_LIMITS_JSON_BODY_BYTES',
      'limits.requestTimeoutMs': file,
      'smtp.allowPrivateMx': 'SVC_SMTP_ALLOW_PRIVATE_MX',
    });
  });

  it('reads SVC_CONFIG when no file is given, and resolves the file’s relative paths against its folder', async () => {
    const file = await configFile(dir(), {
      dataDir: 'data',
      geo: { databases: ['geo/city.mmdb', '/abs/asn.mmdb'] },
    });
    const loaded = await loadServerConfig({
      env: { SVC_CONFIG: file, SVC_TLS_CERT_FILE: 'c.pem', SVC_TLS_KEY_FILE: 'k.pem' },
      cwd: '/srv',
    });
    expect(loaded.file).toBe(file);
    expect(loaded.options.dataDir).toBe(join(dir(), 'data'));
    expect(loaded.options.geo?.databases).toEqual([join(dir(), 'geo/city.mmdb'), '/abs/asn.mmdb']);
    // Paths from the environment are relative to the working directory.
    expect(loaded.options.tls).toEqual({ certFile: '/srv/c.pem', keyFile: '/srv/k.pem' });
  });

  it('splits list variables on commas and turns an empty one into an empty list', async () => {
    const loaded = await loadServerConfig({
      env: {
        SVC_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7 ,2001:db8::/32',
        SVC_CORS_ORIGINS: '',
        SVC_METRICS_PATH: '/metrics',
      },
      cwd: dir(),
    });
    expect(loaded.options.trustedProxies).toEqual(['10.0.0.0/8', '192.168.1.7', '2001:db8::/32']);
    expect(loaded.options.cors).toEqual({ origins: [] });
    expect(loaded.options.metrics).toEqual({ path: '/metrics' });
  });

  it('takes plan settings from the file and from SVC_PLAN_<ID>_<FIELD>, plan ids with underscores included', async () => {
    const file = await configFile(dir(), {
      plans: {
        free: { monthly_allowance: 500 },
        team: { name: 'Team', rate_per_second: 10, burst: 40, bill_company_misses: true },
      },
      ownerPlan: 'team',
    });
    const loaded = await loadServerConfig({
      file,
      cwd: dir(),
      env: {
        SVC_PLAN_FREE_RATE_PER_SECOND: '2',
        SVC_PLAN_SELF_HOSTED_MONTHLY_ALLOWANCE: '1000000',
        SVC_PLAN_PRO_ENDPOINTS: 'geo_ip, geo_me',
        SVC_PLAN_TEAM_MONTHLY_ALLOWANCE: 'unlimited',
        SVC_PLAN_SELF_HOSTED_BILL_COMPANY_MISSES: 'yes',
      },
    });
    expect(loaded.options.plans).toEqual({
      free: { monthly_allowance: 500, rate_per_second: 2 },
      team: {
        name: 'Team',
        rate_per_second: 10,
        burst: 40,
        monthly_allowance: null,
        bill_company_misses: true,
      },
      self_hosted: { monthly_allowance: 1_000_000, bill_company_misses: true },
      pro: { endpoints: ['geo_ip', 'geo_me'] },
    });
    const resolved = resolveServerOptions(loaded.options);
    expect(resolved.plans.free).toMatchObject({ rate_per_second: 2, burst: 10, monthly_allowance: 500 });
    expect(resolved.plans.self_hosted?.monthly_allowance).toBe(1_000_000);
    expect(resolved.ownerPlan).toBe('team');
    // Company misses are not billed unless a plan says so (DESIGN §7).
    expect(resolved.plans.free?.bill_company_misses).toBe(false);
    expect(resolved.plans.team?.bill_company_misses).toBe(true);
  });

  it('warns about an SVC_ variable it does not know (a typo would otherwise do nothing)', async () => {
    const loaded = await loadServerConfig({
      env: { SVC_PROT: '9000', SVC_SECRET_KEY: 'x', SVC_REQUIRE_EXTERNAL: '1' },
      cwd: dir(),
    });
    expect(loaded.warnings).toEqual(['SVC_PROT is not a setting svc serve knows; it is ignored']);
  });
});

describe('bad configuration: the error names the key and the value', () => {
  it.each([
    [{ SVC_PORT: 'eighty' }, 'SVC_PORT', 'SVC_PORT="eighty": port must be a whole number'],
    [{ SVC_PORT: '70000' }, 'SVC_PORT', 'SVC_PORT="70000": port must be an integer from 0 to 65535'],
    [{ SVC_SMTP_ALLOW_PRIVATE_MX: 'maybe' }, 'SVC_SMTP_ALLOW_PRIVATE_MX', 'must be true or false'],
    [{ SVC_LOG_LEVEL: 'verbose' }, 'SVC_LOG_LEVEL', 'logLevel must be one of fatal, error, warn, info'],
    [
      { SVC_TRUSTED_PROXIES: '10.0.0.0/33' },
      'SVC_TRUSTED_PROXIES',
      '"10.0.0.0/33", which has a prefix length',
    ],
    [{ SVC_TRUSTED_PROXIES: 'proxy.local' }, 'SVC_TRUSTED_PROXIES', 'is not an IP address or CIDR range'],
    [{ SVC_DNS: '127.0.0.1' }, 'SVC_DNS', 'dns must be host:port'],
    [{ SVC_CORS_ORIGINS: 'https://app.example.com/' }, 'SVC_CORS_ORIGINS', 'is not an origin'],
    [{ SVC_METRICS_PATH: '/v2/metrics' }, 'SVC_METRICS_PATH', 'must not be under /v2'],
    [{ SVC_SMTP_MAIL_FROM: 'nobody' }, 'SVC_SMTP_MAIL_FROM', 'must be an address'],
    [
      { SVC_PLAN_FREE_BURST: '2.5' },
      'SVC_PLAN_FREE_BURST',
      'plans.free.burst must be an integer of at least 1',
    ],
    [{ SVC_PLAN_FREE_RATE_PER_SECOND: '' }, 'SVC_PLAN_FREE_RATE_PER_SECOND', 'must be a number above 0'],
    [
      { SVC_PLAN_PRO_ENDPOINTS: 'geo_ip,keys_list' },
      'SVC_PLAN_PRO_ENDPOINTS',
      '"keys_list", which is not an endpoint',
    ],
    [{ SVC_PLAN_PRO_LIMIT: '5' }, 'SVC_PLAN_PRO_LIMIT', 'not a plan setting'],
    [
      { SVC_PLAN_PRO_BILL_COMPANY_MISSES: 'sometimes' },
      'SVC_PLAN_PRO_BILL_COMPANY_MISSES',
      'SVC_PLAN_PRO_BILL_COMPANY_MISSES="sometimes": plans.pro.bill_company_misses must be true or false',
    ],
    [{ SVC_OWNER_PLAN: 'gold' }, 'ownerPlan', 'ownerPlan "gold" (SVC_OWNER_PLAN) is not a plan'],
    [
      { SVC_TLS_CERT_FILE: 'c.pem' },
      'tls.keyFile',
      'tls.certFile is set (SVC_TLS_CERT_FILE) but tls.keyFile is not',
    ],
  ])('%j', async (env, key, message) => {
    const error = await loadError({ env, cwd: dir() });
    expect(error.key).toBe(key);
    expect(error.message).toContain(message);
  });

  it('a file value: names the file, the key path and the value', async () => {
    const file = await configFile(dir(), { limits: { jsonBodyBytes: '1mb' } });
    const error = await loadError({ file, env: {}, cwd: dir() });
    expect(error.key).toBe('limits.jsonBodyBytes');
    expect(error.message).toBe(`${file}: limits.jsonBodyBytes must be an integer of at least 1, got "1mb"`);
  });

  it('an unknown key in the file, at any depth, with the keys known there', async () => {
    let error = await loadError({ file: await configFile(dir(), { prot: 80 }), env: {}, cwd: dir() });
    expect(error.key).toBe('prot');
    expect(error.message).toMatch(/unknown option prot \(known here: host, port, dataDir, .*plans\)/);
    error = await loadError({ file: await configFile(dir(), { smtp: { helo: 'x' } }), env: {}, cwd: dir() });
    expect(error.message).toContain(
      'unknown option smtp.helo (known here: heloName, mailFrom, port, allowPrivateMx, proxies, proxySelection, proxyCooldown)',
    );
    error = await loadError({
      file: await configFile(dir(), { plans: { pro: { rps: 3 } } }),
      env: {},
      cwd: dir(),
    });
    expect(error.key).toBe('plans.pro.rps');
  });

  it('a group that is not an object, a plan id that cannot be one, a probe deadline under the normal one', async () => {
    let error = await loadError({ file: await configFile(dir(), { limits: 5 }), env: {}, cwd: dir() });
    expect(error.message).toContain('limits must be an object, got 5');
    error = await loadError({
      file: await configFile(dir(), { plans: { 'Gold Plan': {} } }),
      env: {},
      cwd: dir(),
    });
    expect(error.message).toContain('plans.Gold Plan: the plan id must be lowercase letters');
    error = await loadError({
      file: await configFile(dir(), { limits: { requestTimeoutMs: 20_000, probeRequestTimeoutMs: 10_000 } }),
      env: {},
      cwd: dir(),
    });
    expect(error.key).toBe('limits.probeRequestTimeoutMs');
  });

  it('a missing file, a file that is not JSON, JSON that is not an object', async () => {
    let error = await loadError({ file: join(dir(), 'nope.json'), env: {}, cwd: dir() });
    expect(error.message).toBe(`cannot read the config file ${join(dir(), 'nope.json')}: no such file`);
    error = await loadError({ file: await configFile(dir(), '{ "port": 80, }'), env: {}, cwd: dir() });
    expect(error.message).toContain('is not valid JSON');
    error = await loadError({ file: await configFile(dir(), '[1]'), env: {}, cwd: dir() });
    expect(error.message).toContain('the configuration must be a JSON object');
  });
});

describe('printableConfig (svc serve --print-config)', () => {
  it('shows every resolved option, where set values came from, and never the secret key', async () => {
    const env = { SVC_PORT: '9001', SVC_SECRET_KEY: 'c2VjcmV0LWtleS1tYXRlcmlhbC1kby1ub3QtcHJpbnQ=' };
    const loaded = await loadServerConfig({ env, cwd: dir() });
    const printed = printableConfig(resolveServerOptions(loaded.options), loaded, env);
    const text = JSON.stringify(printed);
    expect(text).not.toContain(env.SVC_SECRET_KEY);
    expect(printed).toMatchObject({
      config_file: null,
      secret_key: '******** (SVC_SECRET_KEY)',
      sources: { port: 'SVC_PORT' },
      options: { port: 9001, host: '127.0.0.1', plans: { free: { burst: 10 } } },
    });
  });

  it('shows every setting of the schema, and each set one with the variable that set it', async () => {
    // One variable per setting, each a value the setting accepts (its default, or a sample).
    const samples: Record<string, string> = {
      'smtp.heloName': 'probe.example.com',
      'smtp.mailFrom': 'probe@example.com',
      'smtp.proxies': 'socks5://10.0.0.1:1080',
      dns: '127.0.0.1:53',
      'tls.certFile': 'cert.pem',
      'tls.keyFile': 'key.pem',
      'metrics.path': '/metrics',
      'probing.testHost': 'mx.example.com',
      'probing.publicAddress': '192.0.2.1',
      'probing.blocklists': 'zen.spamhaus.org',
      databaseUrl: 'postgres://db.example/svc',
      redisUrl: 'redis://cache.example:6379',
    };
    const env: Record<string, string> = {};
    for (const setting of SETTINGS) {
      const key = setting.path.join('.');
      const value = samples[key] ?? setting.schema.default;
      env[envName(setting.path)] = Array.isArray(value) ? value.join(',') : String(value);
    }
    const loaded = await loadServerConfig({ env, cwd: dir() });
    const printed = printableConfig(resolveServerOptions(loaded.options), loaded, env);
    for (const setting of SETTINGS) {
      let value: unknown = printed.options;
      for (const part of setting.path) value = (value as Record<string, unknown> | null)?.[part];
      expect(value, setting.path.join('.')).not.toBeUndefined();
      expect((printed.sources as Record<string, string>)[setting.path.join('.')]).toBe(envName(setting.path));
    }
  });

  it('says where the secret key is kept when no variable sets it', async () => {
    const printed = printableConfig(
      resolveServerOptions({ dataDir: '/var/lib/svc' }),
      { file: null, sources: {} },
      {},
    );
    expect(printed.secret_key).toBe('kept in /var/lib/svc/secret.key');
  });

  it('masks secret-looking fields and passwords inside URLs at any depth', () => {
    expect(
      maskSecrets({
        a: { webhookSecret: 'whsec_abc', licenseKey: 'k', list: ['https://u:pw@h.example/x'] },
        b: 'plain',
      }),
    ).toEqual({
      a: { webhookSecret: '********', licenseKey: '********', list: ['https://u:********@h.example/x'] },
      b: 'plain',
    });
  });
});

describe('environment variable names', () => {
  it('derive from the option path, one per option, all distinct', () => {
    expect(envName(['limits', 'jsonBodyBytes'])).toBe('SVC_LIMITS_JSON_BODY_BYTES');
    expect(envName(['dataDir'])).toBe('SVC_DATA_DIR');
    const names = environmentVariables().map((variable) => variable.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('SVC_WEBHOOKS_ALLOW_PRIVATE_TARGETS');
    expect(names).toContain('SVC_PLAN_<ID>_MONTHLY_ALLOWANCE');
  });
});
