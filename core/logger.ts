// Structured one-line JSON logs. Callers pass facts, never secrets: keys, tokens and
// passwords must not be handed to the logger (tests grep the logs for them).
import { processEnv } from './config.js';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
// SVC_LOG_LEVEL through the one door (core/config.ts); a process's loadConfig sets it again.
const fromEnv = processEnv().SVC_LOG_LEVEL as Level;
let threshold: Level = fromEnv in order ? fromEnv : 'info';

export function setLogLevel(level: Level): void {
  threshold = level;
}

function write(level: Level, component: string, msg: string, fields?: Record<string, unknown>): void {
  if (order[level] < order[threshold]) return;
  const line = JSON.stringify({ t: new Date().toISOString(), level, component, msg, ...fields });
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
}

export function logger(component: string) {
  return {
    debug: (msg: string, f?: Record<string, unknown>) => write('debug', component, msg, f),
    info: (msg: string, f?: Record<string, unknown>) => write('info', component, msg, f),
    warn: (msg: string, f?: Record<string, unknown>) => write('warn', component, msg, f),
    error: (msg: string, f?: Record<string, unknown>) => write('error', component, msg, f),
  };
}
