import { startLoopbackServer } from './server.js';
import type { RecordedHttpResponse } from './types.js';
import { checkCount, checkLoopbackHost, checkPort, fail, isRecord, show } from './validate.js';
import {
  decide,
  type ResolvedBehaviour,
  resolveBehaviour,
  type WebhookBehaviour,
  type WebhookRequest,
} from './webhook-behaviour.js';

/** Options of {@link startWebhookReceiver}: where to listen, plus the initial {@link WebhookBehaviour}. */
export interface WebhookReceiverOptions extends WebhookBehaviour {
  /**
   * The loopback address to listen on (any 127.x.y.z).
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * The port to listen on.
   * @default 0 (ephemeral)
   */
  port?: number;
}

/** One request the receiver got, and how it answered. */
export interface WebhookDelivery extends WebhookRequest {
  /** The answer chosen on arrival (sent after its `delayMs`), or `'hang'` for none. */
  readonly response: RecordedHttpResponse | 'hang';
  /** `Date.now()` when the answer was fully written; `undefined` until then (and for hangs). */
  readonly respondedAt: number | undefined;
}

/** A running fake webhook endpoint. */
export interface WebhookReceiver {
  /** `http://<host>:<port>`, without a trailing slash; any path is accepted. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Every request received, in arrival order (live array). */
  readonly deliveries: readonly WebhookDelivery[];
  /**
   * Resolves with the first `n` deliveries once `n` have arrived in total; rejects with an Error
   * after `timeoutMs` (default 5000) or if the receiver closes first.
   */
  waitFor(n: number, timeoutMs?: number): Promise<readonly WebhookDelivery[]>;
  /** Replaces the behaviour; `failFirst` and the responder's index count from now. */
  setBehaviour(behaviour: WebhookBehaviour): void;
  /** Stops listening and destroys open (even hanging) connections; safe to call more than once. */
  close(): Promise<void>;
}

interface Waiter {
  n: number;
  resolve: (deliveries: readonly WebhookDelivery[]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const WHERE = 'startWebhookReceiver:';

/** Starts a fake webhook endpoint on loopback that records exact bodies and answers as scripted. */
export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  if (!isRecord(options)) fail(WHERE, `options must be an object, got ${show(options)}`);
  const { host: hostOption, port: portOption, ...behaviourOptions } = options;
  let behaviour: ResolvedBehaviour = resolveBehaviour(`${WHERE} options`, behaviourOptions);
  const host = checkLoopbackHost(`${WHERE} options.host`, hostOption ?? '127.0.0.1');
  const port = checkPort(`${WHERE} options.port`, portOption ?? 0);
  let sinceSet = 0;
  let closed = false;
  const deliveries: WebhookDelivery[] = [];
  const waiters = new Set<Waiter>();

  const server = await startLoopbackServer(host, port, (request, res) => {
    const numbered: WebhookRequest = { ...request, index: deliveries.length };
    const delivery = {
      ...numbered,
      response: decide(behaviour, numbered, sinceSet++),
      respondedAt: undefined,
    };
    const mutable: { respondedAt: number | undefined } = delivery;
    deliveries.push(delivery);
    for (const waiter of waiters) {
      if (deliveries.length < waiter.n) continue;
      waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(deliveries.slice(0, waiter.n));
    }
    if (delivery.response === 'hang') return;
    server.send(res, delivery.response, () => {
      mutable.respondedAt = Date.now();
    });
  });
  server.onClose(() => {
    closed = true;
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(
        new Error(
          `webhook receiver closed while waiting for ${waiter.n} deliveries (got ${deliveries.length})`,
        ),
      );
    }
    waiters.clear();
  });

  return {
    url: server.url,
    host: server.host,
    port: server.port,
    deliveries,
    waitFor(n, timeoutMs = 5000) {
      try {
        checkCount('WebhookReceiver.waitFor: n', n);
        checkCount('WebhookReceiver.waitFor: timeoutMs', timeoutMs);
      } catch (error) {
        return Promise.reject(error);
      }
      if (deliveries.length >= n) return Promise.resolve(deliveries.slice(0, n));
      if (closed)
        return Promise.reject(
          new Error(`webhook receiver is closed (got ${deliveries.length} deliveries, wanted ${n})`),
        );
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          n,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(
              new Error(
                `webhook receiver: timed out after ${timeoutMs} ms waiting for ${n} deliveries (got ${deliveries.length})`,
              ),
            );
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    setBehaviour(next) {
      behaviour = resolveBehaviour('WebhookReceiver.setBehaviour: behaviour', next);
      sinceSet = 0;
    },
    close: () => server.close(),
  };
}
