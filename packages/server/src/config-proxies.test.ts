import { tempDirPerTest } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import { type ConfigError, loadServerConfig, printableConfig } from './config.js';
import { resolveServerOptions } from './options.js';
import { configFile, loadError as loadConfigError } from './testing/config-load.js';

// The SOCKS5 proxy pool of the SMTP probe (smtp.proxies): file and variable forms, checks,
// and passwords kept out of messages and --print-config.

const PASSWORD = 'hunter2-proxy-pass';
const dir = tempDirPerTest('svc-config-proxies-');

/** The ConfigError a load throws, whose message must not show the proxy password. */
async function loadError(input: Parameters<typeof loadServerConfig>[0]): Promise<ConfigError> {
  const error = await loadConfigError(input);
  expect(error.message).not.toContain(PASSWORD);
  return error;
}

describe('smtp.proxies', () => {
  it('reads the pool from the file, with pins, limits, selection and cool-down', async () => {
    const smtp = {
      proxies: [
        { url: `socks5://probe:${PASSWORD}@10.0.0.1:1080`, label: 'google-ip', providers: ['google'] },
        { url: 'socks5://10.0.0.2:1080', perHostConcurrency: 1 },
      ],
      proxySelection: 'per-provider',
      proxyCooldown: { initialMs: 5000, maxMs: 60_000 },
    };
    const loaded = await loadServerConfig({ file: await configFile(dir(), { smtp }), env: {}, cwd: dir() });
    expect(resolveServerOptions(loaded.options).smtp).toMatchObject(smtp);
    expect(loaded.sources['smtp.proxies']).toMatch(/svc\.json$/);
  });

  it('defaults to direct connections, per-provider selection, 30 s doubling up to 10 min', () => {
    expect(resolveServerOptions({}).smtp).toMatchObject({
      proxies: [],
      proxySelection: 'per-provider',
      proxyCooldown: { initialMs: 30_000, maxMs: 600_000 },
    });
  });

  it('takes SVC_SMTP_PROXIES as a comma list of URLs or as a JSON array', async () => {
    let loaded = await loadServerConfig({
      env: { SVC_SMTP_PROXIES: `socks5://probe:${PASSWORD}@10.0.0.1:1080, socks5://10.0.0.2:1080` },
      cwd: dir(),
    });
    expect(loaded.options.smtp?.proxies).toEqual([
      { url: `socks5://probe:${PASSWORD}@10.0.0.1:1080` },
      { url: 'socks5://10.0.0.2:1080' },
    ]);
    expect(loaded.sources['smtp.proxies']).toBe('SVC_SMTP_PROXIES');
    loaded = await loadServerConfig({
      env: {
        SVC_SMTP_PROXIES: JSON.stringify([{ url: 'socks5://10.0.0.3:1080', providers: ['microsoft'] }]),
        SVC_SMTP_PROXY_SELECTION: 'per-provider',
        SVC_SMTP_PROXY_COOLDOWN_INITIAL_MS: '1000',
      },
      cwd: dir(),
    });
    expect(loaded.options.smtp).toEqual({
      proxies: [{ url: 'socks5://10.0.0.3:1080', providers: ['microsoft'] }],
      proxySelection: 'per-provider',
      proxyCooldown: { initialMs: 1000 },
    });
  });

  it('refuses a bad pool at start with a message naming the entry, never the password', async () => {
    let error = await loadError({
      env: { SVC_SMTP_PROXIES: `http://probe:${PASSWORD}@10.0.0.1:8080` },
      cwd: dir(),
    });
    expect(error.key).toBe('smtp.proxies');
    expect(error.message).toBe(
      'smtp.proxies[0].url must use the socks5:// scheme, got http:// (SVC_SMTP_PROXIES)',
    );
    error = await loadError({
      file: await configFile(dir(), {
        smtp: { proxies: [{ url: 'socks5://10.0.0.1:1080', providers: ['gmail'] }] },
      }),
      env: {},
      cwd: dir(),
    });
    // The known ids are the mail-provider table's (email-verifier's registry), so only their presence is checked.
    expect(error.message).toContain('smtp.proxies[0].providers: unknown provider "gmail" (known: ');
    expect(error.message).toMatch(/\(known: [a-z_, ]*\bgoogle\b[a-z_, ]*\)/);
    error = await loadError({
      env: {
        SVC_SMTP_PROXIES: JSON.stringify([{ url: 'socks5://10.0.0.1:1080', providers: ['google'] }]),
        SVC_SMTP_PROXY_SELECTION: 'round-robin',
      },
      cwd: dir(),
    });
    expect(error.message).toContain("only proxySelection 'per-provider' does");
    error = await loadError({ env: { SVC_SMTP_PROXIES: '[{"url": ' }, cwd: dir() });
    expect(error.message).toBe(
      'SVC_SMTP_PROXIES="[{\\"url\\": ": smtp.proxies must be a JSON array or a comma-separated list of socks5:// URLs',
    );
    error = await loadError({
      file: await configFile(dir(), { smtp: { proxies: `socks5://probe:${PASSWORD}@10.0.0.1:1080` } }),
      env: {},
      cwd: dir(),
    });
    expect(error.message).toContain('smtp.proxies must be an array of at most 100 proxies');
    expect(error.message).toContain('socks5://probe:********@10.0.0.1:1080');
  });

  it('masks proxy passwords in --print-config', async () => {
    const loaded = await loadServerConfig({
      env: { SVC_SMTP_PROXIES: `socks5://probe:${PASSWORD}@10.0.0.1:1080` },
      cwd: dir(),
    });
    const printed = printableConfig(resolveServerOptions(loaded.options), loaded, {});
    expect(JSON.stringify(printed)).not.toContain(PASSWORD);
    expect(printed.options).toMatchObject({
      smtp: { proxies: [{ url: 'socks5://probe:********@10.0.0.1:1080' }] },
    });
  });
});
