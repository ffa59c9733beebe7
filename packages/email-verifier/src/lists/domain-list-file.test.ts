import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedTempDir } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import { createLists } from './create-lists.js';
import { DomainListError, loadDomainListFile, parseDomainList } from './domain-list-file.js';

describe('parseDomainList', () => {
  it('reads one domain per line with comments, blank lines, case, IDN and duplicates', () => {
    const text = [
      '# refreshed list',
      'Temp-Mail.example   # trailing comment',
      '',
      '   spaced.example   ',
      'bücher.de',
      'temp-mail.example',
      '\r',
    ].join('\n');
    expect(parseDomainList(text)).toEqual(['temp-mail.example', 'spaced.example', 'xn--bcher-kva.de']);
  });

  it('accepts CRLF line ends and an empty file', () => {
    expect(parseDomainList('a.example\r\nb.example\r\n')).toEqual(['a.example', 'b.example']);
    expect(parseDomainList('')).toEqual([]);
    expect(parseDomainList('# only comments\n\n')).toEqual([]);
  });

  it('reports every malformed line with its number', () => {
    const text = ['good.example', 'bad..example', 'two domains.example', '*.wild.example', 'single'].join(
      '\n',
    );
    let caught: unknown;
    try {
      parseDomainList(text, 'custom.txt');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainListError);
    const error = caught as DomainListError;
    expect(error.problems.map((problem) => problem.line)).toEqual([2, 3, 4, 5]);
    expect(error.message).toMatch(/^custom\.txt has 4 malformed lines:/);
    expect(error.message).toMatch(
      /custom\.txt:2: "bad\.\.example" is not a valid domain: .*consecutive dots/,
    );
    expect(error.message).toMatch(/custom\.txt:3: "two domains\.example" holds white space/);
    expect(error.message).toMatch(/custom\.txt:4: .*wildcard/);
    expect(error.message).toMatch(/custom\.txt:5: .*single label/);
  });

  it('shows at most ten problems in the message but keeps them all', () => {
    const text = Array.from({ length: 12 }, (_, i) => `bad${i}`).join('\n');
    expect(() => parseDomainList(text)).toThrow(/… and 2 more/);
    try {
      parseDomainList(text);
    } catch (error) {
      expect((error as DomainListError).problems).toHaveLength(12);
    }
  });
});

describe('loadDomainListFile', () => {
  const dir = sharedTempDir('svc-lists-');

  it('loads a file whose entries then feed createLists', async () => {
    const path = join(dir(), 'extra.txt');
    await writeFile(path, '# local additions\nburner.example\n');
    const extra = await loadDomainListFile(path);
    expect(extra).toEqual(['burner.example']);
    const lists = createLists({ extraDisposable: extra });
    expect(lists.isDisposable('x.burner.example')).toBe(true);
  });

  it('names the file in errors', async () => {
    const path = join(dir(), 'broken.txt');
    await writeFile(path, 'ok.example\nnot_ok.example\n');
    await expect(loadDomainListFile(path)).rejects.toThrow(
      `${path}:2: "not_ok.example" is not a valid domain`,
    );
  });

  it('fails clearly for a missing file', async () => {
    await expect(loadDomainListFile(join(dir(), 'missing.txt'))).rejects.toThrow(/ENOENT/);
  });
});
