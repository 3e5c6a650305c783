import type { LoggerService, LogLevel } from '@nestjs/common';
import { RequestContextStore } from './request-context.js';

const LEVEL_ORDER: Record<LogLevel, number> = { verbose: 10, debug: 20, log: 30, warn: 40, error: 50, fatal: 60 };
const LEVEL_NAME: Record<LogLevel, string> = { verbose: 'trace', debug: 'debug', log: 'info', warn: 'warn', error: 'error', fatal: 'fatal' };

export type LogLevelName = 'debug' | 'info' | 'warn' | 'error' | 'silent';

function toThreshold(level: LogLevelName): number {
  switch (level) {
    case 'debug':
      return LEVEL_ORDER.debug;
    case 'info':
      return LEVEL_ORDER.log;
    case 'warn':
      return LEVEL_ORDER.warn;
    case 'error':
      return LEVEL_ORDER.error;
    case 'silent':
      return Number.POSITIVE_INFINITY;
  }
}

/** One JSON object per line, carrying the request id of the request being served. */
export class JsonLogger implements LoggerService {
  private readonly threshold: number;

  constructor(
    level: LogLevelName = 'info',
    private readonly write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
  ) {
    this.threshold = toThreshold(level);
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.emit('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.emit('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.emit('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.emit('fatal', message, rest);
  }

  private emit(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (LEVEL_ORDER[level] < this.threshold) return;
    // Nest passes the context name as the last string argument.
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level: LEVEL_NAME[level] };
    const ctx = RequestContextStore.get();
    if (ctx?.requestId) entry.requestId = ctx.requestId;
    if (ctx?.tenantId) entry.tenantId = ctx.tenantId;
    if (context) entry.context = context;
    if (message instanceof Error) {
      entry.msg = message.message;
      entry.stack = message.stack;
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(entry, message);
    } else {
      entry.msg = String(message);
    }
    for (const extra of rest) {
      if (typeof extra === 'string' && level === 'error') entry.stack = extra;
      else if (extra instanceof Error) entry.err = { message: extra.message, stack: extra.stack };
      else if (extra !== undefined) entry.extra = extra;
    }
    this.write(JSON.stringify(entry));
  }
}
