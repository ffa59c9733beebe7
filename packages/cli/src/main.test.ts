import { readFile } from 'node:fs/promises';
import { ServiceError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import type { Command } from './command.js';
import { EXIT } from './exit-codes.js';
import { main } from './main.js';
import { COMMANDS } from './registry.js';
import { captureIo } from './testing/capture-io.js';
import { UsageError } from './usage-error.js';
import { cliVersion } from './version.js';

const echo: Command = {
  name: 'echo',
  summary: 'Echo arguments',
  usage: ['<word...> [--upper]'],
  options: { upper: { type: 'boolean' } },
  async run({ io, values, positionals, flags }) {
    if (positionals.length === 0) throw new UsageError('echo needs at least one word');
    if (positionals[0] === 'fail') throw new ServiceError('upstream_timeout', 'the upstream did not answer');
    if (positionals[0] === 'fs') await readFile('/nonexistent/svc-data/x');
    const words = values.upper ? positionals.map((word) => word.toUpperCase()) : positionals;
    io.stdout.write(flags.json ? `${JSON.stringify({ words })}\n` : `${words.join(' ')}\n`);
    return EXIT.ok;
  },
};
const commands = [echo, ...COMMANDS];

describe('svc main', () => {
  it('prints the global help listing every command, exit 0', async () => {
    const io = captureIo();
    expect(await main(['--help'], io, commands)).toBe(EXIT.ok);
    expect(io.out()).toContain('Usage: svc <command> [options]');
    expect(io.out()).toMatch(/echo\s+Echo arguments/);
    expect(io.out()).toMatch(/version\s+Print the version/);
  });

  it('prints the version from package.json, as text or JSON', async () => {
    const text = captureIo();
    expect(await main(['--version'], text)).toBe(EXIT.ok);
    expect(text.out()).toBe(`svc ${cliVersion()}\n`);
    expect(cliVersion()).toMatch(/^\d+\.\d+\.\d+/);
    const json = captureIo();
    expect(await main(['version', '--json'], json)).toBe(EXIT.ok);
    expect(JSON.parse(json.out())).toMatchObject({ version: cliVersion() });
  });

  it('runs a command with its flags and positionals', async () => {
    const io = captureIo();
    expect(await main(['echo', 'a', '--upper', 'b'], io, commands)).toBe(EXIT.ok);
    expect(io.out()).toBe('A B\n');
    const json = captureIo();
    expect(await main(['--json', 'echo', 'x'], json, commands)).toBe(EXIT.ok);
    expect(JSON.parse(json.out())).toEqual({ words: ['x'] });
  });

  it('shows one command help with --help or svc help <command>', async () => {
    for (const argv of [
      ['echo', '--help'],
      ['help', 'echo'],
    ]) {
      const io = captureIo();
      expect(await main(argv, io, commands)).toBe(EXIT.ok);
      expect(io.out()).toContain('svc echo <word...> [--upper]');
    }
  });

  it.each([
    [['frobnicate'], 'svc: unknown command "frobnicate"'],
    [[], 'svc: no command given'],
    [['echo', '--loud', 'x'], 'svc: unknown option --loud\n'],
    [['echo', 'x', '--upper=yes'], 'svc: --upper takes no value\n'],
    [['verify', 'a@b.test', '--dns'], 'svc: --dns needs a value\n'],
    [['--frobnicate'], 'svc: unknown option --frobnicate\n'],
    [['echo'], 'svc: echo needs at least one word'],
    [['help', 'nope'], 'svc: unknown command "nope"'],
    [['version', '--json=yes'], 'svc: --json takes no value\n'],
  ])('bad usage %j prints a clear message and usage, exit 2', async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io, commands)).toBe(EXIT.usage);
    expect(io.err()).toContain(message);
    expect(io.err()).toContain('Usage:');
    expect(io.out()).toBe('');
  });

  it('reports failures with exit 1, as text or as the API error shape with --json', async () => {
    const text = captureIo();
    expect(await main(['echo', 'fail'], text, commands)).toBe(EXIT.failure);
    expect(text.err()).toBe('svc: the upstream did not answer\n');
    const json = captureIo();
    expect(await main(['echo', 'fail', '--json'], json, commands)).toBe(EXIT.failure);
    expect(JSON.parse(json.err())).toEqual({
      error: { code: 'upstream_timeout', message: 'the upstream did not answer' },
    });
    const usage = captureIo();
    expect(await main(['nope', '--json'], usage, commands)).toBe(EXIT.usage);
    expect(JSON.parse(usage.err())).toEqual({
      error: { code: 'invalid_request', message: 'unknown command "nope"' },
    });
  });

  it("gives usage errors the invalid_request code in its own words, never parseArgs's text", async () => {
    for (const [argv, message] of [
      [['verify', 'a@b.test', '--frobnicate', '--json'], 'unknown option --frobnicate'],
      [['geo', '--file', '--json'], '--file needs a value'],
      [['echo', '--json', 'x', '--upper=1'], '--upper takes no value'],
    ] as const) {
      const io = captureIo();
      expect(await main(argv, io, commands)).toBe(EXIT.usage);
      expect(JSON.parse(io.err())).toEqual({ error: { code: 'invalid_request', message } });
      expect(io.out()).toBe('');
    }
  });

  it('tells a raw file-system error that escaped a package by path and cause', async () => {
    const io = captureIo();
    expect(await main(['echo', 'fs', '--json'], io, commands)).toBe(EXIT.failure);
    expect(JSON.parse(io.err())).toEqual({
      error: {
        code: 'internal_error',
        message: 'cannot open /nonexistent/svc-data/x: no such file or directory (ENOENT)',
      },
    });
  });
});
