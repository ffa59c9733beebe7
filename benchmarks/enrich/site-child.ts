// The company websites of the lookup benchmark, run in a child process: a real site's server work
// happens on another machine, so here it must not be charged to the enricher being measured, nor
// count in its peak RSS. One testkit static site answers every company's host name (the guarded
// fetch resolves them all to it), each route after `delayMs`.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type FakeHttpResponse, startStaticSite } from '@svc/testkit';

/** What the child serves: path → body, every answer delayed by `delayMs`. */
export interface SiteConfig {
  routes: Record<string, string>;
  delayMs: number;
}

/** A handle on the child. */
export interface SiteChild {
  port: number;
  /** Requests the site has answered so far, and the child's CPU seconds. */
  stats(): Promise<{ requests: number; cpuSeconds: number }>;
  close(): Promise<void>;
}

type Request = { start: SiteConfig } | { op: 'stats' | 'close' };
type Response =
  | { ready: number }
  | { failed: string }
  | { requests: number; cpuSeconds: number }
  | { closed: true };

const CHILD_FLAG = '--enrich-sites';

/** Starts the site in a child process; resolves with its port once it listens. */
export async function startSiteChild(config: SiteConfig): Promise<SiteChild> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], {
    execArgv: ['--conditions=source', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let waiting: ((response: Response) => void) | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`site child exited with code ${code}`)));
    child.on('message', (message: Response) => {
      if ('ready' in message) resolve(message.ready);
      else if ('failed' in message) reject(new Error(`site child did not start: ${message.failed}`));
      else waiting?.(message);
    });
    child.send({ start: config } satisfies Request);
  });
  // One question at a time is all the benchmark asks.
  const ask = (op: 'stats' | 'close') =>
    new Promise<Response>((resolve) => {
      waiting = resolve;
      child.send({ op } satisfies Request);
    });
  return {
    port,
    async stats() {
      const response = await ask('stats');
      if (!('requests' in response)) throw new Error('site child sent no stats');
      return response;
    },
    async close() {
      child.removeAllListeners('exit');
      await ask('close');
      child.disconnect();
    },
  };
}

function serve(): void {
  const reply = (response: Response) => process.send?.(response);
  let site: Awaited<ReturnType<typeof startStaticSite>> | undefined;
  process.on('message', async (request: Request) => {
    if ('start' in request) {
      try {
        const routes: Record<string, FakeHttpResponse> = {};
        for (const [path, body] of Object.entries(request.start.routes)) {
          routes[path] = { body, delayMs: request.start.delayMs };
        }
        site = await startStaticSite({ routes });
        reply({ ready: site.port });
      } catch (error) {
        reply({ failed: (error as Error).message });
        process.exit(1);
      }
      return;
    }
    if (!site) return;
    if (request.op === 'stats') {
      const cpu = process.cpuUsage();
      const requests = site.requests.length;
      reply({ requests, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
    } else {
      await site.close();
      reply({ closed: true });
      process.disconnect();
    }
  });
}

if (process.argv.includes(CHILD_FLAG)) serve();
