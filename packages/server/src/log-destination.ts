import pino from 'pino';

/** How long a log line may wait in the buffer of `bufferedLogDestination`. */
export const LOG_FLUSH_MS = 250;

/** Bytes of log lines gathered before they are written. */
const LOG_BUFFER_BYTES = 4096;

/** A log destination for pino and how to stop it. */
export interface BufferedLogDestination {
  stream: { write(line: string): void };
  /** Writes what is buffered and stops the timer. */
  close(): void;
}

/**
 * The server's default log destination: lines gathered in memory and written to `fd` (stdout)
 * when 4 KiB have come, at least every LOG_FLUSH_MS, on `close`, and when the process exits.
 *
 * The writing itself is pino's own destination (sonic-boom) in its default synchronous mode,
 * which handles partial writes and a busy pipe; the gathering is ours because sonic-boom's own
 * buffer (`minLength`) measures the whole pending string on every line, and its asynchronous
 * mode pays a thread-pool round trip per write: together about 3 µs a request, against about
 * 0.3 µs here. Like pino's default, a log reader that stops reading holds the server up once the
 * pipe is full, rather than the log growing without bound in memory; one that cannot be written
 * at all costs the log, never a request.
 */
export function bufferedLogDestination(fd = 1, flushMs = LOG_FLUSH_MS): BufferedLogDestination {
  // At most 1 MiB may wait behind a write that failed; beyond it lines are dropped, not kept.
  const out = pino.destination({ dest: fd, sync: true, maxLength: 1 << 20 });
  // A log that cannot be written (the reader went away: EPIPE) must not fail the requests that
  // log: its lines are dropped, and stderr says so once.
  let told = false;
  out.on('error', (error: Error) => {
    if (told) return;
    told = true;
    process.stderr.write(`svc: the log cannot be written (${error.message}); log lines are dropped\n`);
  });
  let lines: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (lines.length === 0) return;
    const chunk = lines.join('');
    lines = [];
    bytes = 0;
    out.write(chunk);
  };
  const timer = setInterval(flush, flushMs);
  timer.unref();
  process.on('exit', flush);
  return {
    stream: {
      write(line) {
        lines.push(line);
        // Characters, not bytes: close enough to decide when to write, and free to count.
        bytes += line.length;
        if (bytes >= LOG_BUFFER_BYTES) flush();
      },
    },
    close() {
      clearInterval(timer);
      process.off('exit', flush);
      flush();
    },
  };
}
