import { isIPv6 } from 'node:net';
import { createTCPServer, createUDPServer, type DnsHandler, type TCPServer, type UDPServer } from 'dns2';

/** A UDP socket and a TCP server bound to the same host and port. */
export interface DnsListeners {
  udp: UDPServer;
  tcp: TCPServer;
  port: number;
}

// Another process can take the TCP port between our UDP bind and TCP listen; a few fresh
// ephemeral ports make that race harmless.
const MAX_ATTEMPTS = 20;

/**
 * Binds UDP on `port` (0 = ephemeral) then TCP on the port UDP got, retrying with a new
 * ephemeral port when TCP finds it taken.
 */
export async function listenUdpAndTcp(
  host: string,
  port: number,
  onUdp: DnsHandler,
  onTcp: DnsHandler,
): Promise<DnsListeners> {
  for (let attempt = 1; ; attempt++) {
    const udp = createUDPServer({ type: isIPv6(host) ? 'udp6' : 'udp4' });
    udp.on('request', onUdp);
    await bindUdp(udp, host, port);
    const bound = udp.address().port;
    const tcp = createTCPServer(onTcp);
    try {
      await listenTcp(tcp, host, bound);
      return { udp, tcp, port: bound };
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (port !== 0 || !taken || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

function bindUdp(udp: UDPServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      try {
        udp.close();
      } catch {
        // A socket whose bind failed may already count as closed.
      }
      reject(error);
    };
    udp.once('error', onError);
    udp.bind(port, host, () => {
      udp.off('error', onError);
      resolve();
    });
  });
}

function listenTcp(tcp: TCPServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, host, () => {
      tcp.off('error', reject);
      resolve();
    });
  });
}
