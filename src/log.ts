/**
 * Logging: one pino root logger, a child per component (`node`, `rpc`, `metrics`, `plugins.<name>` …).
 * Levels change at run time (`--logging` at start, admin_changeLogLevel later), for every logger or for
 * named ones; a name covers the loggers below it (`plugins` covers `plugins.example`). Lines go to
 * standard output as JSON objects, or as readable text (`--logging-format`; AUTO picks text on a
 * terminal).
 */
import { type DestinationStream, type Logger, pino } from 'pino';

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

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

export type LogFormat = 'AUTO' | 'TEXT' | 'JSON';

const jsonSink = pino.destination({ fd: 1, sync: false });
let text = false;

/** Turns one pino JSON line into `time | LEVEL | logger | message key=value …`. */
export function formatLogLine(line: string): string {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, name, msg, err, ...rest } = obj;
  const when = new Date(typeof time === 'number' ? time : Date.now()).toISOString().replace('T', ' ');
  const levelName = (LEVEL_NAMES[level as number] ?? String(level)).padEnd(5);
  let out = `${when.slice(0, -1)}+00:00 | ${levelName} | ${String(name ?? 'alder')} | ${String(msg ?? '')}`;
  for (const [k, v] of Object.entries(rest)) {
    out += ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
  }
  if (err && typeof err === 'object') {
    const e = err as { message?: string; stack?: string };
    out += `\n${e.stack ?? e.message ?? JSON.stringify(err)}`;
  }
  return `${out}\n`;
}

/** Writes to standard output in the chosen format; the format can be chosen after loggers exist. */
const sink: DestinationStream = {
  write(line: string): void {
    if (text) jsonSink.write(formatLogLine(line));
    else jsonSink.write(line);
  },
};

const root = pino({ base: undefined, level: 'info' }, sink);
const children = new Map<string, Logger>();
/** Levels set for a name (and the names below it) by a filtered change. */
const named = new Map<string, string>();

export function logger(name: string): Logger {
  let l = children.get(name);
  if (!l) {
    l = root.child({ name });
    const own = levelFor(name);
    if (own) l.level = own;
    children.set(name, l);
  }
  return l;
}

function covers(filter: string, name: string): boolean {
  return name === filter || name.startsWith(`${filter}.`);
}

/** The level of the longest filter covering `name`. */
function levelFor(name: string): string | undefined {
  let best: string | undefined;
  let found: string | undefined;
  for (const [filter, level] of named) {
    if (covers(filter, name) && (best === undefined || filter.length > best.length)) {
      best = filter;
      found = level;
    }
  }
  return found;
}

/** True for the level names `setLogLevel` accepts (Besu's: OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL). */
export function isLogLevel(level: string): boolean {
  return LEVELS[level.toUpperCase()] !== undefined;
}

/**
 * Sets the level of every logger, or of the loggers named by `names` and those below them. Returns
 * false for an unknown level.
 */
export function setLogLevel(level: string, names?: readonly string[]): boolean {
  const pinoLevel = LEVELS[level.toUpperCase()];
  if (!pinoLevel) return false;
  if (!names || names.length === 0) {
    named.clear();
    root.level = pinoLevel;
    for (const l of children.values()) l.level = pinoLevel;
  } else {
    for (const n of names) {
      named.set(n, pinoLevel);
      for (const [name, l] of children) if (covers(n, name)) l.level = levelFor(name) ?? pinoLevel;
      logger(n);
    }
  }
  return true;
}

/** The level a logger writes at, in Besu's names. */
export function logLevelOf(name?: string): string {
  const l = name === undefined ? root : logger(name);
  const found = Object.entries(LEVELS).find(([, v]) => v === l.level);
  return found ? found[0] : l.level.toUpperCase();
}

/** Chooses the line format; AUTO writes text when standard output is a terminal. */
export function setLogFormat(format: LogFormat): void {
  text = format === 'TEXT' || (format === 'AUTO' && process.stdout.isTTY === true);
}

export function flushLogs(): void {
  try {
    jsonSink.flushSync();
  } catch {
    // Not open yet: nothing was written.
  }
}
