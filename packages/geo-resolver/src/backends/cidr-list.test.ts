import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCidrListBackend } from './cidr-list.js';

describe('CIDR-list backend', () => {
  it('flags addresses inside listed networks, at both edges, and nothing outside', async () => {
    const backend = await openCidrListBackend({
      lists: [
        { flag: 'is_tor', networks: ['185.220.101.0/24', '185.220.100.5'] },
        { flag: 'is_vpn', networks: ['185.220.101.128/25', '2a0e:1c80::/29'] },
      ],
    });
    expect(backend.lookup('185.220.101.0', 4)).toEqual({ is_tor: true });
    expect(backend.lookup('185.220.101.255', 4)).toEqual({ is_tor: true, is_vpn: true });
    expect(backend.lookup('185.220.102.0', 4)).toBeNull();
    expect(backend.lookup('185.220.100.255', 4)).toBeNull();
    expect(backend.lookup('185.220.100.5', 4)).toEqual({ is_tor: true });
    expect(backend.lookup('2a0e:1c80::1', 6)).toEqual({ is_vpn: true });
    expect(backend.lookup('2a0e:1c87:ffff:ffff:ffff:ffff:ffff:ffff', 6)).toEqual({ is_vpn: true });
    expect(backend.lookup('2a0e:1c88::', 6)).toBeNull();
  });

  it('merges overlapping and adjacent networks', async () => {
    const backend = await openCidrListBackend({
      lists: [
        { flag: 'is_hosting', networks: ['10.0.0.0/24', '10.0.1.0/24', '10.0.0.128/25', '9.255.255.255/32'] },
      ],
    });
    for (const ip of ['9.255.255.255', '10.0.0.0', '10.0.0.200', '10.0.1.255']) {
      expect(backend.lookup(ip, 4), ip).toEqual({ is_hosting: true });
    }
    expect(backend.lookup('10.0.2.0', 4)).toBeNull();
  });

  it('reads files with comments and reloads them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cidr-'));
    try {
      const path = join(dir, 'tor.txt');
      await writeFile(path, '# Tor exits\n198.51.100.0/24 # a comment\n\n');
      const backend = await openCidrListBackend({ lists: [{ flag: 'is_tor', path }] });
      expect(backend.lookup('198.51.100.7', 4)).toEqual({ is_tor: true });
      await writeFile(path, '203.0.113.0/24\n');
      await backend.reload?.();
      expect(backend.generation).toBe(1);
      expect(backend.lookup('198.51.100.7', 4)).toBeNull();
      expect(backend.lookup('203.0.113.1', 4)).toEqual({ is_tor: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['10.0.0.0/33', 'networks[0]: "10.0.0.0/33" is not a network'],
    ['010.0.0.0/8', 'networks[0]: "010.0.0.0/8" is not a network'],
    ['10.0.0.0/8/8', 'is not a network'],
    ['10.0.0.0/', 'is not a network'],
    ['example.com', '"example.com" is not a network'],
  ])('rejects the malformed line %s with its position', async (line, message) => {
    await expect(openCidrListBackend({ lists: [{ flag: 'is_proxy', networks: [line] }] })).rejects.toThrow(
      message,
    );
  });

  it('names the file and line of a malformed entry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cidr-'));
    try {
      const path = join(dir, 'vpn.txt');
      await writeFile(path, '192.0.2.0/24\n192.0.2.300\n');
      await expect(openCidrListBackend({ lists: [{ flag: 'is_vpn', path }] })).rejects.toThrow(
        `${path}:2: "192.0.2.300"`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
