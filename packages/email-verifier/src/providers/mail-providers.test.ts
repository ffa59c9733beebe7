import { describe, expect, it } from 'vitest';
import { readDataFile } from '../lists/data-files.js';
import {
  buildRegistry,
  identifyMailHosts,
  mailProviderIds,
  mailProviderOf,
  mailProviders,
  mxProvider,
} from './mail-providers.js';

describe('the mail provider registry (data/mail-providers.json)', () => {
  it('loads, every entry with a kind, host-name patterns and where they come from', () => {
    const providers = mailProviders();
    expect(providers.length).toBeGreaterThanOrEqual(20);
    for (const provider of providers) {
      expect(provider.source, provider.id).toMatch(/\S{10,}/);
      expect(provider.mx.length, provider.id).toBeGreaterThan(0);
    }
    expect(mailProviderIds()).toEqual([...mailProviderIds()].sort());
  });

  it('names the providers and gateways the issue asks for', () => {
    const kinds = Object.fromEntries(mailProviders().map((provider) => [provider.id, provider.kind]));
    for (const id of [
      'google',
      'microsoft',
      'yahoo',
      'apple',
      'zoho',
      'proton',
      'fastmail',
      'yandex',
      'mailru',
      'gmx',
      'ovh',
      'godaddy',
      'amazon_ses',
    ])
      expect(kinds[id], id).toBe('mailbox');
    for (const id of ['proofpoint', 'mimecast', 'barracuda', 'cisco', 'trendmicro'])
      expect(kinds[id], id).toBe('gateway');
  });

  // Host names as the sources recorded in the data file give them.
  it.each([
    ['aspmx.l.google.com', 'google'],
    ['ALT4.ASPMX.L.GOOGLE.COM.', 'google'],
    ['smtp.google.com', 'google'],
    ['gmail-smtp-in.l.google.com', 'google'],
    ['contoso-com.mail.protection.outlook.com', 'microsoft'],
    ['outlook-com.olc.protection.outlook.com', 'microsoft'],
    ['contoso-com.o-v1.mx.microsoft', 'microsoft'],
    ['mta5.am0.yahoodns.net', 'yahoo'],
    ['mx01.mail.icloud.com', 'apple'],
    ['mx2.zoho.eu', 'zoho'],
    ['mx.zoho.com.au', 'zoho'],
    ['mailsec.protonmail.ch', 'proton'],
    ['in1-smtp.messagingengine.com', 'fastmail'],
    ['mx.yandex.net', 'yandex'],
    ['emx.mail.ru', 'mailru'],
    ['mx00.emig.gmx.net', 'gmx'],
    ['mx-ha03.web.de', 'gmx'],
    ['mx00.ionos.de', 'ionos'],
    ['mx3.mail.ovh.net', 'ovh'],
    ['mailstore1.secureserver.net', 'godaddy'],
    ['inbound-smtp.us-west-2.amazonaws.com', 'amazon_ses'],
    ['mxbiz1.qq.com', 'qq'],
    ['mx0a-00123401.pphosted.com', 'proofpoint'],
    ['mx1-us1.ppe-hosted.com', 'proofpoint'],
    ['us-smtp-inbound-1.mimecast.com', 'mimecast'],
    ['d123456a.ess.barracudanetworks.com', 'barracuda'],
    ['mx1.acme.iphmx.com', 'cisco'],
    ['mx.eu.etd.cisco.com', 'cisco'],
    ['mx.usgov.etd.cisco', 'cisco'],
    ['abc123.in.tmes.trendmicro.eu', 'trendmicro'],
    ['mx-01-eu-west-1.prod.hydra.sophos.com', 'sophos'],
    ['cluster1.eu.messagelabs.com', 'broadcom'],
    ['mx01.hornetsecurity.com', 'hornetsecurity'],
  ])('%s belongs to %s', (host, id) => expect(mxProvider(host)).toBe(id));

  it.each([
    'mx.example.com',
    'notgoogle.com',
    'google.com.evil.test',
    // Only SES's inbound endpoints are a mail provider, not every AWS host name.
    'ec2-192-0-2-1.compute-1.amazonaws.com',
    'inbound-smtp.amazonaws.com',
    'inbound-smtp.a.b.amazonaws.com',
    // Outlook's other hosts are not MX hosts of a customer's domain.
    'outlook.office365.com',
  ])('%s belongs to no one', (host) => expect(mailProviderOf(host)).toBeNull());
});

describe('identifyMailHosts', () => {
  it('names the provider of the most preferred host', () => {
    expect(identifyMailHosts(['aspmx.l.google.com', 'alt1.aspmx.l.google.com'])).toEqual({
      provider: 'google',
      gateway: null,
    });
  });

  it('names a gateway in front, and the provider behind it when the backup hosts all name one', () => {
    expect(identifyMailHosts(['mx0a-001.pphosted.com', 'mx0b-001.pphosted.com'])).toEqual({
      provider: null,
      gateway: 'proofpoint',
    });
    expect(
      identifyMailHosts(['eu-smtp-inbound-1.mimecast.com', 'contoso-com.mail.protection.outlook.com']),
    ).toEqual({ provider: 'microsoft', gateway: 'mimecast' });
    // Two different providers behind the gateway: nothing certain.
    expect(
      identifyMailHosts(['mx1.acme.iphmx.com', 'aspmx.l.google.com', 'contoso.mail.protection.outlook.com']),
    ).toEqual({ provider: null, gateway: 'cisco' });
  });

  it('says nothing when the most preferred host is not known, or there is none', () => {
    expect(identifyMailHosts(['mx.acme.example', 'aspmx.l.google.com'])).toEqual({
      provider: null,
      gateway: null,
    });
    expect(identifyMailHosts([])).toEqual({ provider: null, gateway: null });
  });

  it('a gateway only as a backup host is not in front', () => {
    expect(identifyMailHosts(['aspmx.l.google.com', 'mx0a-001.pphosted.com'])).toEqual({
      provider: 'google',
      gateway: null,
    });
  });
});

describe('buildRegistry refuses a malformed data file, naming the row', () => {
  const row = {
    id: 'acme',
    kind: 'mailbox',
    name: 'Acme',
    mx: ['acme.example'],
    source: 'dns: acme.example MX',
  };
  it.each([
    [{ ...row, source: '' }, /source/],
    [{ ...row, id: 'Acme Mail' }, /snake_case/],
    [{ ...row, kind: 'webmail' }, /kind/],
    [{ ...row, mx: [] }, /at least one/],
    [{ ...row, mx: ['ACME.example'] }, /pattern/],
    [{ ...row, mx: ['*.example'] }, /pattern/],
  ])('%j', (bad, message) => expect(() => buildRegistry([bad])).toThrow(message));

  it('the same pattern under two ids', () => {
    expect(() => buildRegistry([row, { ...row, id: 'other' }])).toThrow(/also acme's/);
  });

  it('accepts the shipped file', () => {
    expect(() => buildRegistry(readDataFile('mail-providers.json', Array.isArray))).not.toThrow();
  });
});
