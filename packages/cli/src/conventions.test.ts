import { fileURLToPath } from 'node:url';
import { signPayload } from '@svc/webhooks';
import { describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.js';
import { main } from './main.js';
import { captureIo } from './testing/capture-io.js';

const fixtures = fileURLToPath(new URL('../../../fixtures/maxmind-db/test-data/', import.meta.url));
const body = '{"id":"evt_1","object":"event","type":"batch.completed","created":1,"data":{"object":{}}}';

// The README's one rule: per-record results (failed ones too) on stdout; the command's own
// failure on stderr, as `svc: …` or {"error":{"code","message"}} with --json.
describe('where svc writes results and errors', () => {
  it('svc geo: a failed address is a per-record result, on stdout', async () => {
    const io = captureIo();
    expect(await main(['geo', '10.0.0.1', '--json', '--db', `${fixtures}GeoIP2-City-Test.mmdb`], io)).toBe(
      EXIT.failure,
    );
    expect(JSON.parse(io.out())).toMatchObject({ ip: '10.0.0.1', error: { code: 'invalid_ip' } });
    expect(io.err()).toBe('');
  });

  it('svc webhooks verify: a signature that does not check is the command failing, on stderr', async () => {
    const io = captureIo(body);
    const header = signPayload(body, 'whsec_other');
    expect(await main(['webhooks', 'verify', '--json', '--secret', 'whsec_x', '--header', header], io)).toBe(
      EXIT.failure,
    );
    expect(io.out()).toBe('');
    expect(JSON.parse(io.err())).toMatchObject({ error: { code: 'invalid_request' } });
    const valid = captureIo(body);
    const good = signPayload(body, 'whsec_x');
    expect(await main(['webhooks', 'verify', '--json', '--secret', 'whsec_x', '--header', good], valid)).toBe(
      EXIT.ok,
    );
    expect(JSON.parse(valid.out())).toMatchObject({ valid: true, event: { id: 'evt_1' } });
    expect(valid.err()).toBe('');
  });
});
