import type { ListDownload } from '../network-lists/update.js';

/** A plain download with the size bound, for tests on loopback (the CLI adds the SSRF guard). */
export const plainDownload: ListDownload = async (url, maxBytes) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  const body = Buffer.from(await response.arrayBuffer());
  if (body.length > maxBytes) throw new Error(`${url}: larger than ${maxBytes} bytes`);
  return body;
};
