import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../testing/test-server.js';
import { DASHBOARD_CSP } from './dashboard.js';

const built = mkdtempSync(join(tmpdir(), 'svc-dashboard-'));
mkdirSync(join(built, 'assets'));
writeFileSync(join(built, 'index.html'), '<!doctype html><title>svc dashboard</title>');
writeFileSync(join(built, 'assets', 'index-abc123.js'), 'console.log(1)');
afterAll(() => rmSync(built, { recursive: true, force: true }));

describe('dashboardPlugin', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.app.close();
  });

  it('serves the built page at /dashboard/ with its security headers; assets cached, the page not', async () => {
    server = await createTestServer({ dashboardDir: built });
    const redirect = await server.app.inject({ method: 'GET', url: '/dashboard' });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('/dashboard/');

    const page = await server.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<title>svc dashboard</title>');
    expect(page.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-cache');

    const asset = await server.app.inject({ method: 'GET', url: '/dashboard/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    // A missing file is the API's 404 body, and the page is not an API operation.
    const missing = await server.app.inject({ method: 'GET', url: '/dashboard/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('not_found');
    const document = (await server.app.inject({ method: 'GET', url: '/v2/openapi.json' })).json();
    expect(Object.keys(document.paths).filter((path) => path.includes('dashboard'))).toEqual([]);
  });

  it('says how to build the page when it was not built', async () => {
    server = await createTestServer({ dashboardDir: join(built, 'not-here') });
    const response = await server.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.message).toMatch(
      /the dashboard is not built in this installation.*pnpm build/,
    );
  });

  it('serves nothing at /dashboard with dashboardDir: null', async () => {
    server = await createTestServer({ dashboardDir: null });
    const response = await server.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.message).toMatch(/nothing at \/dashboard\//);
  });

  it('answers refused paths (traversal, NUL) over HTTP with 404 not_found, never a plan error', async () => {
    server = await createTestServer({ dashboardDir: built });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as { port: number };
    // node:http sends `path` as written (fetch would resolve the dots before sending).
    const get = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path }, (response) => {
          let body = '';
          response.on('data', (chunk) => {
            body += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        })
          .on('error', reject)
          .end();
      });
    for (const path of [
      '/dashboard/%2e%2e/package.json',
      '/dashboard/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/dashboard/assets/../../package.json',
      '/dashboard/assets/%00',
    ]) {
      const { status, body } = await get(path);
      expect({ path, status }).toEqual({ path, status: 404 });
      expect(JSON.parse(body).error).toMatchObject({
        code: 'not_found',
        request_id: expect.stringMatching(/^req_/),
      });
    }
  });
});
