import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, LevelWithSilentOrString, Logger } from 'pino';

type LogArguments = Parameters<FastifyBaseLogger['info']>;

/**
 * `request.log` as `createServer` makes it: the pino child with the request's id, made the first
 * time something logs through it. Fastify makes a child logger for every request, and pino's
 * `child` (a new object, the bindings serialized to JSON) was about 0.6 µs and 500 bytes of every
 * call, while most requests log nothing through it: their one line is the request-log plugin's,
 * which writes the id itself.
 *
 * It has the methods of Fastify's logger type (the levels, `level`, `child`) and pino's
 * `isLevelEnabled`, `bindings` and `flush`; for the rest of pino's interface, use
 * `request.log.child({})`, which is a pino logger.
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly requestBindings: Bindings,
  ) {}

  /** The pino child, made on first use. */
  private get logger(): Logger {
    this.made ??= this.parent.child(this.requestBindings);
    return this.made;
  }

  get level(): LevelWithSilentOrString {
    return (this.made ?? this.parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger.level = level;
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  // Each level asks whether it is on before making the child: a debug call at level info
  // costs nothing, as with pino.
  fatal(...args: LogArguments): void {
    this.write('fatal', args);
  }

  error(...args: LogArguments): void {
    this.write('error', args);
  }

  warn(...args: LogArguments): void {
    this.write('warn', args);
  }

  info(...args: LogArguments): void {
    this.write('info', args);
  }

  debug(...args: LogArguments): void {
    this.write('debug', args);
  }

  trace(...args: LogArguments): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  bindings(): Bindings {
    return this.logger.bindings();
  }

  flush(callback?: (error?: Error) => void): void {
    this.parent.flush(callback);
  }

  private write(level: Level, args: LogArguments): void {
    if (!this.isLevelEnabled(level)) return;
    const logger = this.logger;
    (logger[level] as (...args: unknown[]) => void).apply(logger, args);
  }
}

/**
 * Fastify's `childLoggerFactory` for `LazyRequestLogger`. A route with its own log level or
 * serializers gets pino's child at once, as Fastify would make it.
 */
export const lazyRequestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => {
  if (options.level !== undefined || options.serializers !== undefined)
    return logger.child(bindings, options);
  return new LazyRequestLogger(logger as Logger, bindings);
};
