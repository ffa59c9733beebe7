import { describe, expect, it } from 'vitest';
import { accessLogFormatter } from './access-log.js';

describe('accessLogFormatter', () => {
  const format = accessLogFormatter({ pid: 4242 }, 'api-1');
  const entry = {
    requestId: 'req_01jh3k9a2b0000000000000000000000',
    method: 'GET',
    path: '/v2/geo/8.8.8.8',
    status: 200,
    endpoint: 'geo_ip',
    accountId: 'acct_01jh3k9a2b0000000000000000000000',
    ms: 1.2,
  };

  it('writes its own format: pino-compatible keys, the process id and host name it was given', () => {
    expect(format(entry, 1_764_201_600_000)).toBe(
      '{"level":30,"time":1764201600000,"pid":4242,"hostname":"api-1","request_id":"req_01jh3k9a2b0000000000000000000000","method":"GET","path":"/v2/geo/8.8.8.8","status":200,"endpoint":"geo_ip","account_id":"acct_01jh3k9a2b0000000000000000000000","ms":1.2,"msg":"request"}\n',
    );
  });

  it('escapes what JSON must, writes null for no endpoint or account, and puts route fields before msg', () => {
    const line = format(
      {
        ...entry,
        path: '/v1/a"b\\c\u0001',
        endpoint: null,
        accountId: null,
        ms: 0,
        extra: { 'a"b': { x: [1] } },
      },
      0,
    );
    const parsed = JSON.parse(line);
    expect(parsed).toMatchObject({ path: '/v1/a"b\\c\u0001', endpoint: null, account_id: null, ms: 0 });
    expect(Object.keys(parsed).slice(-2)).toEqual(['a"b', 'msg']);
    expect(parsed['a"b']).toEqual({ x: [1] });
  });

  it("defaults to this process's id and this machine's name", async () => {
    const { hostname } = await import('node:os');
    expect(JSON.parse(accessLogFormatter()(entry))).toMatchObject({ pid: process.pid, hostname: hostname() });
  });
});
