import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseDataDir, svcDataDir } from './data-dir.js';

describe('svcDataDir', () => {
  it('is $SVC_DATA_DIR, else $XDG_DATA_HOME/svc, else ~/.local/share/svc (never the cache)', () => {
    expect(svcDataDir({ SVC_DATA_DIR: '/srv/svc', XDG_DATA_HOME: '/x', HOME: '/home/u' })).toBe('/srv/svc');
    expect(svcDataDir({ XDG_DATA_HOME: '/x', XDG_CACHE_HOME: '/c', HOME: '/home/u' })).toBe('/x/svc');
    expect(svcDataDir({ XDG_CACHE_HOME: '/c', HOME: '/home/u' })).toBe('/home/u/.local/share/svc');
    // XDG: a relative XDG_DATA_HOME is invalid and ignored; an empty SVC_DATA_DIR is unset.
    expect(svcDataDir({ SVC_DATA_DIR: '', XDG_DATA_HOME: 'rel', HOME: '/home/u' })).toBe(
      '/home/u/.local/share/svc',
    );
  });
});

describe('chooseDataDir', () => {
  let root: string;
  let env: Record<string, string>;
  let earlier: { path: string; files: string[] };
  const userDir = () => join(root, 'home', '.local', 'share', 'svc');
  const put = (dir: string, file: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, file), 'x');
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-data-dir-'));
    env = { HOME: join(root, 'home') };
    earlier = { path: join(root, 'work', 'svc-data'), files: ['secret.key', 'control-plane.db'] };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('uses the new default, without a notice, when the earlier place holds nothing', () => {
    expect(chooseDataDir(env, earlier)).toEqual({ path: userDir(), notice: null });
    // A folder alone, or other files in it, are not data worth keeping.
    put(earlier.path, 'batch.db');
    expect(chooseDataDir(env, earlier)).toEqual({ path: userDir(), notice: null });
  });

  it('keeps the earlier place while it holds data and the new default does not, and says so', () => {
    put(earlier.path, 'secret.key');
    // The new default exists (another command made its geo folder): the key still wins.
    mkdirSync(join(userDir(), 'geo'), { recursive: true });
    const choice = chooseDataDir(env, earlier);
    expect(choice.path).toBe(earlier.path);
    expect(choice.notice).toBe(
      `using the data in ${earlier.path}, where earlier versions kept it; the default data dir is now ${userDir()}. ` +
        `Move its files there (with svc stopped), or set SVC_DATA_DIR=${earlier.path} to keep it where it is.`,
    );
  });

  it('uses the new default once it holds data, naming the data left behind', () => {
    put(earlier.path, 'control-plane.db');
    put(userDir(), 'secret.key');
    const choice = chooseDataDir(env, earlier);
    expect(choice.path).toBe(userDir());
    expect(choice.notice).toContain(`${earlier.path} holds data of an earlier version that is not used`);
  });

  it('never looks further when SVC_DATA_DIR is set', () => {
    put(earlier.path, 'secret.key');
    expect(chooseDataDir({ ...env, SVC_DATA_DIR: '/srv/svc' }, earlier)).toEqual({
      path: '/srv/svc',
      notice: null,
    });
  });
});
