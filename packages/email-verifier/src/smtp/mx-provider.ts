/**
 * Mail providers recognised by the names of their MX hosts, for pinning SOCKS5 proxies to a
 * receiving provider: the big receivers each keep their own reputation per sending IP, so an
 * operator may give each its own proxy. An MX host belongs to a provider when its name is one
 * of the suffixes or ends with `.` + one of them.
 */
export const MX_PROVIDERS: Readonly<Record<string, readonly string[]>> = {
  google: ['google.com', 'googlemail.com', 'smtp.goog'],
  microsoft: ['protection.outlook.com', 'outlook.com', 'hotmail.com'],
  yahoo: ['yahoodns.net', 'yahoo.com'],
  apple: ['icloud.com', 'me.com'],
  zoho: ['zoho.com', 'zoho.eu', 'zohomail.com'],
  fastmail: ['messagingengine.com'],
  proton: ['protonmail.ch'],
  gmx: ['gmx.net', 'web.de', 'mail.com'],
  yandex: ['yandex.net', 'yandex.ru'],
  mimecast: ['mimecast.com'],
  proofpoint: ['pphosted.com', 'ppe-hosted.com'],
  barracuda: ['barracudanetworks.com'],
};

/** The provider names of MX_PROVIDERS, sorted. */
export const MX_PROVIDER_NAMES: readonly string[] = Object.keys(MX_PROVIDERS).sort();

// Longest suffix first, so `protection.outlook.com` wins over a shorter suffix of another provider.
const SUFFIXES = Object.entries(MX_PROVIDERS)
  .flatMap(([provider, suffixes]) => suffixes.map((suffix) => [suffix, provider] as const))
  .sort((a, b) => b[0].length - a[0].length);

/** The provider an MX host name belongs to (`aspmx.l.google.com` → `google`), or null. */
export function mxProvider(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  for (const [suffix, provider] of SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return provider;
  }
  return null;
}
