/**
 * The `smtp` options of a verifier (`@svc/email-verifier`) that probes a fake fleet from a test:
 * the fleet's port, loopback addresses allowed (the fleet is on 127/8), a fixed HELO name,
 * timeouts short for a test yet long enough on a loaded machine, and no catch-all cache, so each
 * test sees the whole dialogue, catch-all question included. Spread it to change a field.
 */
export function fleetProbeOptions(fleet: { readonly port: number }) {
  return {
    port: fleet.port,
    allowPrivateAddresses: true,
    heloName: 'verifier.test',
    connectTimeoutMs: 500,
    commandTimeoutMs: 2000,
    timeoutMs: 3000,
    catchAllCacheMs: 0,
  };
}
