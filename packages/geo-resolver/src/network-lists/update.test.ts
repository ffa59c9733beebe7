import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeoResolver } from '../resolver.js';
import { plainDownload } from '../testing/download.js';
import { openNetworkListsBackend, updatedListsPath } from './backend.js';
import { BUNDLED_LISTS_DIR } from './snapshot.js';
import { updateNetworkLists } from './update.js';

const download = plainDownload;

describe('updateNetworkLists against a loopback HTTP server', () => {
  let site: StaticSite;
  let cacheDir: string;
  let torList: string;
  beforeAll(async () => {
    cacheDir = await mkdtemp(join(tmpdir(), 'geo-lists-'));
    // The shipped Tor snapshot in the bulk exit list's format (one address per line), plus one new exit.
    torList = `${await readFile(join(BUNDLED_LISTS_DIR, 'tor-exits.txt'), 'utf8')}203.0.114.77\n`;
    const relay = (await readFile(join(BUNDLED_LISTS_DIR, 'icloud-private-relay.txt'), 'utf8'))
      .trim()
      .split('\n');
    site = await startStaticSite({
      routes: {
        '/good.txt': { body: torList, headers: { 'content-type': 'text/plain' } },
        // Cut in the middle of an address, as a dropped connection leaves it.
        '/truncated.txt': {
          body: torList.slice(0, Math.floor(torList.length / 2) + 3),
          headers: { 'content-type': 'text/plain' },
        },
        '/empty.txt': { body: '', headers: { 'content-type': 'text/plain' } },
        '/wrong-format.txt': {
          body: '<!doctype html><title>Rate limited</title>\n',
          headers: { 'content-type': 'text/plain' },
        },
        // 9 % of the Private Relay list, in Apple's CSV format: above its minimum count, but 91 % smaller.
        '/shrunk.csv': {
          body: `${relay
            .slice(0, Math.floor(relay.length * 0.09))
            .map((network) => `${network},US,US-CA,Los Angeles,`)
            .join('\n')}\n`,
          headers: { 'content-type': 'text/csv' },
        },
        '/private.txt': {
          body: `${torList}10.1.2.3\n192.168.0.0/16\n`,
          headers: { 'content-type': 'text/plain' },
        },
      },
    });
  });
  afterAll(async () => {
    await site.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  const update = (file: string, id = 'tor-exits') =>
    updateNetworkLists({
      cacheDir,
      download,
      datasets: [id],
      urls: { [id]: [`${site.url}/${file}`] },
      now: () => new Date('2026-11-27T12:00:00Z'),
    });

  it('swaps in a good file: the new exit is flagged after a reload, and the dataset shows the fetch', async () => {
    const backend = await openNetworkListsBackend({ cacheDir });
    const resolver = await createGeoResolver({ backends: [backend], timezoneFromCoordinates: false });
    try {
      expect(resolver.lookup('203.0.114.77').is_tor).toBe(false);
      const result = await update('good.txt');
      expect(result.changed).toBe(true);
      expect(result.lists).toEqual([expect.objectContaining({ id: 'tor-exits', status: 'updated' })]);
      // The backend opened before the update read the shipped file; a new one reads the fresh one.
      const fresh = await openNetworkListsBackend({ cacheDir });
      const after = await createGeoResolver({ backends: [fresh], timezoneFromCoordinates: false });
      expect(after.lookup('203.0.114.77')).toMatchObject({ is_tor: true, is_proxy: true });
      // The other lists are unchanged: an AWS address is still hosting.
      expect(after.lookup('3.5.0.10').is_hosting).toBe(true);
      expect(fresh.describe?.().find((db) => db.id === 'tor-exits')).toMatchObject({
        version: '2026-11-27T12:00:00.000Z',
        source: updatedListsPath(cacheDir),
      });
      after.close();
      expect((await stat(updatedListsPath(cacheDir))).mode & 0o777).toBe(0o600);
    } finally {
      resolver.close();
    }
  });

  it.each([
    ['truncated.txt', 'tor-exits', /cut off/],
    ['empty.txt', 'tor-exits', /empty body/],
    ['wrong-format.txt', 'tor-exits', /is not a network/],
    ['shrunk.csv', 'icloud-private-relay', /shrank by 91 %/],
  ])('keeps the old data when the fresh copy is %s', async (file, id, reason) => {
    const before = await readFile(updatedListsPath(cacheDir));
    const result = await update(file, id);
    expect(result.changed).toBe(false);
    expect(result.lists).toEqual([
      expect.objectContaining({ id, status: 'kept', error: expect.stringMatching(reason) }),
    ]);
    expect((await readFile(updatedListsPath(cacheDir))).equals(before)).toBe(true);
    const backend = await openNetworkListsBackend({ cacheDir });
    const resolver = await createGeoResolver({ backends: [backend], timezoneFromCoordinates: false });
    expect(resolver.lookup('203.0.114.77').is_tor).toBe(true);
    resolver.close();
  });

  it('leaves private ranges out of a fresh list and reports them', async () => {
    const result = await update('private.txt');
    expect(result.lists[0]).toMatchObject({ status: 'updated', dropped: 2 });
  });

  it('refuses an unknown list id', async () => {
    await expect(updateNetworkLists({ cacheDir, download, urls: { nope: ['http://x'] } })).rejects.toThrow(
      /no network list "nope"/,
    );
  });
});
