import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BufferedLogDestination, bufferedLogDestination } from './log-destination.js';

let fd: number | undefined;
let destination: BufferedLogDestination | undefined;

afterEach(() => {
  destination?.close();
  destination = undefined;
  if (fd !== undefined) closeSync(fd);
  fd = undefined;
});

function openLog(flushMs = 60_000): { path: string; log: BufferedLogDestination } {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-log-')), 'out.log');
  fd = openSync(path, 'w');
  destination = bufferedLogDestination(fd, flushMs);
  return { path, log: destination };
}

const line = (i: number) => `${JSON.stringify({ n: i, pad: 'x'.repeat(90) })}\n`;

describe('bufferedLogDestination', () => {
  it('holds lines until 4 KiB have come, then writes them in order', () => {
    const { path, log } = openLog();
    for (let i = 0; i < 10; i++) log.stream.write(line(i));
    expect(readFileSync(path, 'utf8')).toBe('');
    for (let i = 10; i < 50; i++) log.stream.write(line(i));
    const written = readFileSync(path, 'utf8');
    expect(written.length).toBeGreaterThanOrEqual(4096);
    expect(written).toBe(Array.from({ length: written.split('\n').length - 1 }, (_, i) => line(i)).join(''));
  });

  it('keeps the order and the bytes of multi-byte and very long lines', () => {
    const { path, log } = openLog();
    const lines = [
      line(1),
      `${JSON.stringify({ path: '/v2/geo/ü€😀', n: 2 })}\n`,
      `${JSON.stringify({ long: 'é'.repeat(3_000) })}\n`, // beyond the buffer: written on its own
      line(3),
      `${JSON.stringify({ long: '€'.repeat(1_400) })}\n`, // 4,200 bytes: fits only after a flush
    ];
    for (const text of lines) log.stream.write(text);
    log.close();
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
  });

  it('writes what waits at least every flush interval, and everything on close', async () => {
    const { path, log } = openLog(30);
    log.stream.write(line(1));
    await expect.poll(() => readFileSync(path, 'utf8'), { timeout: 2_000 }).toBe(line(1));
    log.stream.write(line(2));
    log.close();
    expect(readFileSync(path, 'utf8')).toBe(line(1) + line(2));
  });

  it('writes what waits when the process exits, and stops listening for the exit on close', () => {
    const before = new Set(process.listeners('exit'));
    const { path, log } = openLog();
    const added = process.listeners('exit').filter((listener) => !before.has(listener));
    expect(added).toHaveLength(1);
    log.stream.write(line(1));
    (added[0] as (code: number) => void)(0);
    expect(readFileSync(path, 'utf8')).toBe(line(1));
    log.close();
    expect(process.listeners('exit')).not.toContain(added[0]);
  });

  it('a log that cannot be written drops its lines and says so once on stderr; writing goes on', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'svc-log-')), 'read-only.log');
    closeSync(openSync(path, 'w'));
    fd = openSync(path, 'r'); // writes fail with EBADF, as a closed pipe fails with EPIPE
    const told = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      destination = bufferedLogDestination(fd, 60_000);
      // Far more than the 1 MiB that may wait behind the failed write: dropped, not kept.
      for (let i = 0; i < 20_000; i++) destination.stream.write(line(i));
      destination.close();
      destination = undefined;
      const messages = told.mock.calls
        .map(([text]) => String(text))
        .filter((text) => text.includes('svc: the log'));
      expect(messages).toEqual([
        expect.stringMatching(/^svc: the log cannot be written \(.*EBADF.*\); log lines are dropped\n$/),
      ]);
    } finally {
      told.mockRestore();
    }
  });
});
