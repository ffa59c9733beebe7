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
 * Bytes of the buffer lines are encoded into: twice the flush size, so a line of up to a third of
 * that (in UTF-16 units, each at most 3 bytes of UTF-8) always fits after the last line.
 */
const POOL_BYTES = 2 * LOG_BUFFER_BYTES;

/**
 * The server's default log destination: lines gathered in memory and written to `fd` (stdout)
 * when 4 KiB have come, at least every LOG_FLUSH_MS, on `close`, and when the process exits.
 *
 * The writing itself is pino's own destination (sonic-boom) in its default synchronous mode,
 * which handles partial writes and a busy pipe; the gathering is ours because sonic-boom's own
 * buffer (`minLength`) measures the whole pending string on every line, and its asynchronous
 * mode pays a thread-pool round trip per write: together about 3 µs a request. Each line is
 * encoded once, as it comes, into a buffer of bytes, and sonic-boom gets those bytes
 * (`contentMode: 'buffer'`): handed strings, it measured each chunk and encoded it twice more,
 * once to write it and once to count what was written. (The profile put this destination at
 * about 1 µs a request before and after that change: the work dropped is real, a speed-up was
 * not measurable on the machines we have.) Like pino's default,
 * a log reader that stops reading holds the server up once the pipe is full, rather than the
 * log growing without bound in memory; one that cannot be written at all costs the log, never a
 * request.
 */
export function bufferedLogDestination(fd = 1, flushMs = LOG_FLUSH_MS): BufferedLogDestination {
  // At most 1 MiB may wait behind a write that failed; beyond it lines are dropped, not kept.
  const out = pino.destination({ dest: fd, sync: true, maxLength: 1 << 20, contentMode: 'buffer' });
  // A log that cannot be written (the reader went away: EPIPE) must not fail the requests that
  // log: its lines are dropped, and stderr says so once.
  let told = false;
  out.on('error', (error: Error) => {
    if (told) return;
    told = true;
    process.stderr.write(`svc: the log cannot be written (${error.message}); log lines are dropped\n`);
  });
  // In contentMode 'buffer', sonic-boom's write takes bytes; its types know only strings.
  const writeBytes = (bytes: Buffer) => (out.write as unknown as (bytes: Buffer) => boolean).call(out, bytes);
  let pool = Buffer.allocUnsafe(POOL_BYTES);
  let used = 0;
  const flush = () => {
    if (used === 0) return;
    // sonic-boom keeps what a partial write left: the chunk is its own from here on, and the
    // next lines go into a new buffer.
    const chunk = pool.subarray(0, used);
    pool = Buffer.allocUnsafe(POOL_BYTES);
    used = 0;
    writeBytes(chunk);
  };
  const timer = setInterval(flush, flushMs);
  timer.unref();
  process.on('exit', flush);
  return {
    stream: {
      write(line) {
        if (line.length * 3 > POOL_BYTES - used) {
          // Only a line of more than (POOL_BYTES − LOG_BUFFER_BYTES) / 3 characters can get here.
          flush();
          writeBytes(Buffer.from(line));
          return;
        }
        used += pool.write(line, used);
        if (used >= LOG_BUFFER_BYTES) flush();
      },
    },
    close() {
      clearInterval(timer);
      process.off('exit', flush);
      flush();
    },
  };
}
