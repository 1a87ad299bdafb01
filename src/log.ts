/**
 * Logging: one pino root logger, a child per component. `setLogLevel` changes levels at run time
 * (admin_changeLogLevel uses it), for every logger or for the named ones.
 */
import { type Logger, pino } from 'pino';

const LEVELS: Record<string, string> = {
  OFF: 'silent',
  FATAL: 'fatal',
  ERROR: 'error',
  WARN: 'warn',
  INFO: 'info',
  DEBUG: 'debug',
  TRACE: 'trace',
  ALL: 'trace',
};

const root = pino({ base: undefined, level: 'info' }, pino.destination({ fd: 1, sync: false }));
const children = new Map<string, Logger>();

export function logger(name: string): Logger {
  let l = children.get(name);
  if (!l) {
    l = root.child({ name });
    children.set(name, l);
  }
  return l;
}

/** Sets the level (Besu names: OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL). */
export function setLogLevel(level: string, names?: string[]): boolean {
  const pinoLevel = LEVELS[level.toUpperCase()];
  if (!pinoLevel) return false;
  if (!names || names.length === 0) {
    root.level = pinoLevel;
    for (const l of children.values()) l.level = pinoLevel;
  } else {
    for (const n of names) logger(n).level = pinoLevel;
  }
  return true;
}

export function flushLogs(): void {
  root.flush();
}
