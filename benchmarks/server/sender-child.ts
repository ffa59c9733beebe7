// A client in a process of its own that POSTs one JSON body, once or again and again for a while.
// The benchmarks that measure `GET /v2/health` while big bodies arrive (hostile-bodies,
// batch-submit) send them from here: building, sending and receiving a body of a MiB then never
// delays the probe, which stays alone in the parent's event loop. The parent forks this file with
// `--sender-child` (startSender), sends one SenderTask, and says `go` when the probe runs.
import { type ChildProcess, fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

export const SENDER_FLAG = '--sender-child';

/** What one sender does. */
export interface SenderTask {
  url: string;
  key: string;
  path: string;
  body: string;
  /** Send again and again until this long after `go`; absent: once. */
  durationMs?: number;
}

/** What a sender reports when it is done. */
export interface SenderReport {
  /** Responses by status; `reset` counts requests that got no answer (the connection was reset or closed). */
  statuses: Record<string, number>;
  /** The last response's body. */
  lastBody: string;
  /** When the first response arrived: `performance.timeOrigin + performance.now()`, comparable across processes. */
  firstAnsweredAt: number;
}

type ToSender = { task: SenderTask } | { go: true };
type FromSender = { ready: true } | { report: SenderReport } | { failed: string };

/** Wall-clock milliseconds with sub-millisecond precision, the same clock in every process. */
export const wallNow = () => performance.timeOrigin + performance.now();

/** A running sender: `run` starts it and resolves with its report when it is done. */
export interface Sender {
  run(): Promise<SenderReport>;
}

/**
 * Forks a sender and hands it its task; resolves once the child holds the body and waits for `go`.
 * `nice` lowers the sender's priority (0 to 19): on a machine of two cores, three clients sending
 * as fast as they can otherwise take the cores from the server and the probe, which measures the
 * machine's scheduler rather than the server (clients on other machines take none of its cores).
 */
export async function startSender(task: SenderTask, options: { nice?: number } = {}): Promise<Sender> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [SENDER_FLAG], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (options.nice) setPriority(child.pid as number, options.nice);
  const next = () =>
    new Promise<FromSender>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`sender exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (message: FromSender) => {
        child.off('exit', onExit);
        resolve(message);
      });
    });
  const ready = next();
  child.send({ task } satisfies ToSender);
  const first = await ready;
  if (!('ready' in first)) throw new Error(`sender did not start: ${JSON.stringify(first)}`);
  return {
    async run() {
      const done = next();
      child.send({ go: true } satisfies ToSender);
      const message = await done;
      child.disconnect();
      if ('failed' in message) throw new Error(`sender failed: ${message.failed}`);
      if (!('report' in message)) throw new Error('sender sent no report');
      return message.report;
    },
  };
}

async function send(task: SenderTask): Promise<SenderReport> {
  const statuses: Record<string, number> = {};
  let lastBody = '';
  let firstAnsweredAt = Number.NaN;
  const stopAt = performance.now() + (task.durationMs ?? 0);
  do {
    let status: string;
    try {
      const response = await fetch(`${task.url}${task.path}`, {
        method: 'POST',
        headers: { 'x-api-key': task.key, 'content-type': 'application/json' },
        body: task.body,
      });
      lastBody = await response.text();
      status = String(response.status);
    } catch (error) {
      // A server that stops reading a refused body may reset a client still writing it: counted, and sent again.
      if (!task.durationMs) throw error;
      status = 'reset';
    }
    if (Number.isNaN(firstAnsweredAt)) firstAnsweredAt = wallNow();
    statuses[status] = (statuses[status] ?? 0) + 1;
  } while (performance.now() < stopAt);
  return { statuses, lastBody, firstAnsweredAt };
}

function main(): void {
  let task: SenderTask | undefined;
  process.on('message', (message: ToSender) => {
    if ('task' in message) {
      task = message.task;
      process.send?.({ ready: true } satisfies FromSender);
      return;
    }
    if (!task) return;
    send(task).then(
      (report) => process.send?.({ report } satisfies FromSender),
      (error: Error) => process.send?.({ failed: error.stack ?? String(error) } satisfies FromSender),
    );
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv.includes(SENDER_FLAG)) main();
