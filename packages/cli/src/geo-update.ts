import { join } from 'node:path';
import { ServiceError } from '@svc/core';
import { installMmdb } from '@svc/geo-resolver';
import { geoDir } from './data-dir.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage-error.js';

/** Sources `svc geo update` knows; each installs one city database. */
export const UPDATE_SOURCES = ['dbip-lite', 'geolite2'] as const;
export type UpdateSource = (typeof UPDATE_SOURCES)[number];

/** Where an installed source's city database lives in a geo data folder (`geoDir`). */
export function installedCityPath(geoData: string, source: UpdateSource): string {
  return join(geoData, 'installed', `${source}-city.mmdb`);
}

/** The download URL of a source (the month's DB-IP Lite file, or GeoLite2 with a licence key). */
export function sourceUrl(source: UpdateSource, licenseKey: string | undefined, now: Date): string {
  if (source === 'dbip-lite') {
    const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    return `https://download.db-ip.com/free/dbip-city-lite-${month}.mmdb.gz`;
  }
  if (!licenseKey) throw new UsageError('geolite2 needs --license-key (a free MaxMind account key)', 'geo');
  const query = new URLSearchParams({
    edition_id: 'GeoLite2-City',
    license_key: licenseKey,
    suffix: 'tar.gz',
  });
  return `https://download.maxmind.com/app/geoip_download?${query}`;
}

/** What `svc geo update` installed (printed as is with --json: snake_case, ISO 8601). */
export interface InstalledGeoData {
  source: UpdateSource;
  database_type: string;
  built_at: string;
  path: string;
}

/** Downloads, verifies and atomically installs a city database; the old file stays on any failure. */
export async function updateGeoData(io: CliIo, source: UpdateSource, url: string): Promise<InstalledGeoData> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(300_000) });
  } catch (error) {
    throw new ServiceError(
      'upstream_timeout',
      `download from ${redact(url)} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (!response.ok) {
    throw new ServiceError(
      'upstream_timeout',
      `download from ${redact(url)} answered HTTP ${response.status}`,
    );
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  const target = installedCityPath(geoDir(io), source);
  try {
    const info = await installMmdb(bytes, target);
    return {
      source,
      database_type: info.databaseType,
      built_at: info.buildEpoch.toISOString(),
      path: target,
    };
  } catch (error) {
    throw new ServiceError(
      'unprocessable',
      `the download from ${redact(url)} was not installed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

// Licence keys travel in the query string; never print them.
function redact(url: string): string {
  return url.replace(/(license_key=)[^&]+/, '$1***');
}
