import { readFileSync } from 'node:fs';

/** A PEM certificate chain and its private key for STARTTLS. */
export interface SmtpTlsCredentials {
  /** PEM certificate (chain). */
  cert: string | Buffer;
  /** PEM private key. */
  key: string | Buffer;
}

// The same relative path works from src/smtp/ (tests) and dist/smtp/ (built package).
const CERT_DIR = new URL('../../certs/', import.meta.url);

/**
 * The testkit's self-signed certificate (CN mx.test, SAN localhost, *.test, 127.0.0.1) and its key,
 * e.g. to pin as `ca` in a client that verifies certificates.
 */
export function loadSmtpTestCertificate(): { cert: Buffer; key: Buffer } {
  return {
    cert: readFileSync(new URL('localhost.crt', CERT_DIR)),
    key: readFileSync(new URL('localhost.key', CERT_DIR)),
  };
}
