// Downloads are checked by their Content-Type (a gzip file must not look like HTML), so a route
// without one gets the type its path's extension implies. Longest suffixes come first.
const BY_SUFFIX: readonly [string, string][] = [
  ['.tar.gz', 'application/gzip'],
  ['.tgz', 'application/gzip'],
  ['.gz', 'application/gzip'],
  ['.zip', 'application/zip'],
  ['.tar', 'application/x-tar'],
  ['.mmdb', 'application/octet-stream'],
  ['.html', 'text/html; charset=utf-8'],
  ['.htm', 'text/html; charset=utf-8'],
  ['.json', 'application/json'],
  ['.jsonld', 'application/ld+json'],
  ['.xml', 'application/xml'],
  ['.csv', 'text/csv; charset=utf-8'],
  ['.txt', 'text/plain; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.png', 'image/png'],
  ['.ico', 'image/x-icon'],
  ['.svg', 'image/svg+xml'],
];

/** The content type for a route path: by extension, else HTML for strings and octets for bytes. */
export function contentTypeFor(path: string, bodyIsText: boolean): string {
  const pathname = (path.split('?')[0] ?? path).toLowerCase();
  for (const [suffix, type] of BY_SUFFIX) if (pathname.endsWith(suffix)) return type;
  return bodyIsText ? 'text/html; charset=utf-8' : 'application/octet-stream';
}
