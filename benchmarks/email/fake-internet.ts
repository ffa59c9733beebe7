// The fake DNS server and fake MTAs of the SMTP benchmark, run in a child process. Real MTAs do
// their side of every exchange (timers, parsing, the server half of each TLS handshake) on other
// machines; in the measured process that work would be charged to the client being measured (and
// only to the one that uses STARTTLS), and the fakes' memory would count in its peak RSS.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type DnsZones, type SmtpRcptAction, startDnsServer, startSmtpFleet } from '@svc/testkit';

/** What the child serves. */
export interface FakeInternetConfig {
  zones: DnsZones;
  /** Loopback addresses of the fake MTAs, all on `port`. */
  hosts: string[];
  port: number;
  mailboxes: Record<string, SmtpRcptAction>;
  /** Per-domain RCPT behaviour (`'accept'` = catch-all). */
  domains: Record<string, SmtpRcptAction>;
  replyDelayMs: number;
  /** What the delay stands for (testkit's replyDelayModel). @default 'service' */
  replyDelayModel?: 'service' | 'latency';
}

/** The fleet's records since the last reset. */
export interface FleetStats {
  sessions: number;
  /** The highest number of simultaneous connections any one MX saw. */
  peakPerMx: number;
  /** CPU seconds (user + system) the fakes' process used since the last reset. */
  cpuSeconds: number;
}

/** A handle on the child process. */
export interface FakeInternet {
  /** `127.0.0.1:port` of the fake DNS server. */
  dnsAddress: string;
  /** Waits until no SMTP connection is open, then returns the records. */
  stats(): Promise<FleetStats>;
  /** Forgets the recorded sessions and peaks. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

type Request = { start: FakeInternetConfig } | { id: number; op: 'stats' | 'reset' | 'close' };
type Response = { ready: string } | { failed: string } | { id: number; stats?: FleetStats };

const CHILD_FLAG = '--fake-internet';

/** Starts the fake DNS and MTAs in a child process; resolves once both listen. */
export async function startFakeInternet(config: FakeInternetConfig): Promise<FakeInternet> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], {
    execArgv: ['--conditions=source', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (response: Response) => void>();
  let nextId = 0;
  const dnsAddress = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`fake internet exited with code ${code}`)));
    child.on('message', (message: Response) => {
      if ('ready' in message) resolve(message.ready);
      else if ('failed' in message) reject(new Error(`fake internet did not start: ${message.failed}`));
      else pending.get(message.id)?.(message);
    });
    child.send({ start: config } satisfies Request);
  });
  const ask = (op: 'stats' | 'reset' | 'close') =>
    new Promise<Response>((resolve) => {
      const id = nextId++;
      pending.set(id, (response) => {
        pending.delete(id);
        resolve(response);
      });
      child.send({ id, op } satisfies Request);
    });
  return {
    dnsAddress,
    async stats() {
      const response = await ask('stats');
      if (!('id' in response) || !response.stats) throw new Error('fake internet sent no stats');
      return response.stats;
    },
    async reset() {
      await ask('reset');
    },
    async close() {
      child.removeAllListeners('exit');
      await ask('close');
      child.disconnect();
    },
  };
}

/** The child's side: starts the servers on the first message and answers the others. */
function serve(): void {
  const reply = (response: Response) => process.send?.(response);
  let fleet: Awaited<ReturnType<typeof startSmtpFleet>> | undefined;
  let dns: Awaited<ReturnType<typeof startDnsServer>> | undefined;
  let hosts: string[] = [];
  let cpuAtReset = process.cpuUsage();
  process.on('message', async (request: Request) => {
    if ('start' in request) {
      const config = request.start;
      try {
        hosts = config.hosts;
        dns = await startDnsServer({ zones: config.zones });
        fleet = await startSmtpFleet({
          hosts: config.hosts,
          port: config.port,
          script: {
            defaultRcpt: 'unknown',
            mailboxes: config.mailboxes,
            domains: config.domains,
            replyDelayMs: config.replyDelayMs,
            replyDelayModel: config.replyDelayModel ?? 'service',
          },
        });
        reply({ ready: dns.address });
      } catch (error) {
        reply({ failed: (error as Error).message });
        process.exit(1);
      }
      return;
    }
    if (!fleet || !dns) return;
    if (request.op === 'stats') {
      await fleet.waitForIdle();
      const peakPerMx = Math.max(...hosts.map((host) => fleet?.peakConnections(host) ?? 0));
      const cpu = process.cpuUsage(cpuAtReset);
      const cpuSeconds = (cpu.user + cpu.system) / 1e6;
      reply({ id: request.id, stats: { sessions: fleet.sessions.length, peakPerMx, cpuSeconds } });
    } else if (request.op === 'reset') {
      fleet.resetRecords();
      cpuAtReset = process.cpuUsage();
      reply({ id: request.id });
    } else {
      await fleet.close();
      await dns.close();
      reply({ id: request.id });
      process.disconnect();
    }
  });
}

if (process.argv[2] === CHILD_FLAG) serve();
