import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PAID_PROVIDERS } from '@svc/enricher/providers';
import { serveFlags } from '@svc/server';
import { tempDirPerTest } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';
import { serveCommand } from './serve.js';

const dir = tempDirPerTest('svc-serve-cli-');

describe('svc serve --print-config', () => {
  it('prints the effective settings (file < SVC_* < flags) with the secret key masked, and exits', async () => {
    await writeFile(
      join(dir(), 'svc.json'),
      JSON.stringify({ port: 9000, dataDir: 'data', logLevel: 'warn' }),
    );
    const io = captureIo();
    io.cwd = dir();
    const secret = 'a'.repeat(64);
    io.env = { SVC_LOG_LEVEL: 'error', SVC_SECRET_KEY: secret, SVC_PROT: '1' };
    const code = await main(['serve', '--config', 'svc.json', '--host', '0.0.0.0', '--print-config'], io);
    expect(code).toBe(EXIT.ok);
    expect(io.out()).not.toContain(secret);
    const printed = JSON.parse(io.out());
    expect(printed).toMatchObject({
      config_file: join(dir(), 'svc.json'),
      secret_key: '******** (SVC_SECRET_KEY)',
      options: { host: '0.0.0.0', port: 9000, dataDir: join(dir(), 'data'), logLevel: 'error' },
      sources: { host: '--host', port: join(dir(), 'svc.json'), logLevel: 'SVC_LOG_LEVEL' },
    });
    expect(io.err()).toBe('svc: warning: SVC_PROT is not a setting svc serve knows; it is ignored\n');
  });

  it("defaults to the user's data dir; an earlier ./svc-data holding the key is kept, with a notice", async () => {
    const dataDirOf = async (env: Record<string, string>) => {
      const io = captureIo();
      io.cwd = join(dir(), 'project');
      io.env = { HOME: join(dir(), 'home'), ...env };
      expect(await main(['serve', '--print-config'], io)).toBe(EXIT.ok);
      return { dataDir: JSON.parse(io.out()).options.dataDir as string, err: io.err() };
    };
    const userDir = join(dir(), 'home', '.local', 'share', 'svc');
    expect(await dataDirOf({})).toEqual({ dataDir: userDir, err: '' });
    expect(await dataDirOf({ XDG_DATA_HOME: join(dir(), 'xdg') })).toEqual({
      dataDir: join(dir(), 'xdg', 'svc'),
      err: '',
    });
    // svc serve of an earlier version made ./svc-data with the server key.
    const earlier = join(dir(), 'project', 'svc-data');
    await mkdir(earlier, { recursive: true });
    await writeFile(join(earlier, 'secret.key'), 'x');
    const upgraded = await dataDirOf({});
    expect(upgraded.dataDir).toBe(earlier);
    expect(upgraded.err).toBe(
      `svc: notice: using the data in ${earlier}, where earlier versions kept it; the default data dir is now ${userDir}. ` +
        `Move its files there (with svc stopped), or set SVC_DATA_DIR=${earlier} to keep it where it is.\n`,
    );
    // Configured: no looking around, no notice.
    expect(await dataDirOf({ SVC_DATA_DIR: 'state' })).toEqual({
      dataDir: join(dir(), 'project', 'state'),
      err: '',
    });
  });

  it('stops with exit 2 and the key and value on a bad setting, with no usage text', async () => {
    const io = captureIo();
    io.env = { SVC_LIMITS_JSON_BODY_BYTES: '1mb' };
    expect(await main(['serve', '--print-config'], io)).toBe(EXIT.usage);
    expect(io.err()).toBe(
      'svc: SVC_LIMITS_JSON_BODY_BYTES="1mb": limits.jsonBodyBytes must be a whole number\n',
    );
    const json = captureIo();
    json.env = { SVC_PORT: '-1' };
    expect(await main(['serve', '--json'], json)).toBe(EXIT.usage);
    expect(JSON.parse(json.err())).toEqual({
      error: { code: 'invalid_request', message: 'SVC_PORT="-1": port must be a whole number' },
    });
  });

  it("does not warn about the variables it reads besides the settings (the paid providers' keys)", async () => {
    const io = captureIo();
    io.cwd = dir();
    io.env = Object.fromEntries(PAID_PROVIDERS.map((provider) => [provider.envVar, 'key-value']));
    io.env.SVC_CONFIG = join(dir(), 'none.json');
    await writeFile(io.env.SVC_CONFIG, '{}');
    expect(await main(['serve', '--print-config'], io)).toBe(EXIT.ok);
    expect(io.err()).toBe('');
  });

  it("has a flag for each setting the schema gives one (x-flag), and checks it by the setting's rules", async () => {
    for (const { flag } of serveFlags()) expect(serveCommand.options).toHaveProperty(flag.slice(2));
    const io = captureIo();
    expect(await main(['serve', '--port', '70000', '--print-config'], io)).toBe(EXIT.usage);
    expect(io.err()).toContain('svc: --port="70000": port must be an integer from 0 to 65535');
  });

  it('checks --port itself', async () => {
    const io = captureIo();
    expect(await main(['serve', '--port', '80a', '--print-config'], io)).toBe(EXIT.usage);
    expect(io.err()).toContain('svc: --port="80a": port must be a whole number');
  });
});

describe('svc serve --role', () => {
  it('shows the role and the database/Redis URLs with their passwords masked', async () => {
    const io = captureIo();
    io.cwd = dir();
    io.env = {
      SVC_DATABASE_URL: 'postgres://svc:pg-secret@db.internal:5432/svc',
      SVC_REDIS_URL: 'redis://:redis-secret@cache.internal:6379',
    };
    expect(await main(['serve', '--role', 'worker', '--print-config'], io)).toBe(EXIT.ok);
    expect(io.out()).not.toMatch(/pg-secret|redis-secret/);
    expect(JSON.parse(io.out())).toMatchObject({
      options: {
        role: 'worker',
        databaseUrl: 'postgres://svc:********@db.internal:5432/svc',
        redisUrl: 'redis://:********@cache.internal:6379',
      },
      sources: { role: '--role', databaseUrl: 'SVC_DATABASE_URL' },
    });
  });

  it('refuses an unknown role, and a worker on SQLite with the reason', async () => {
    const io = captureIo();
    expect(await main(['serve', '--role', 'scheduler'], io)).toBe(EXIT.usage);
    expect(io.err()).toContain('--role="scheduler": role must be one of api, worker, all');
    const sqlite = captureIo();
    sqlite.cwd = dir();
    expect(await main(['serve', '--role', 'worker'], sqlite)).toBe(EXIT.usage);
    expect(sqlite.err()).toContain(
      'svc: role worker (--role) needs databaseUrl: with the SQLite default the batch store and the control plane are files in one data dir',
    );
  });
});
