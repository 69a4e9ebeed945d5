// `svc login` storage: the user's credentials in a config file only they can read (0600, in a
// 0700 directory), like gh's hosts.yml. Flags and SVC_* variables still win over it.
//   $SVC_CONFIG_DIR/config.json, else $XDG_CONFIG_HOME/svc/config.json, else ~/.config/svc/config.json
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { InputError } from './exit-codes.js';

export interface StoredConfig {
  base_url?: string;
  api_key?: string;
  access_token?: string;
  /** Who signed in (shown by `svc login --status`); never a password. */
  email?: string;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  const dir =
    env.SVC_CONFIG_DIR ||
    (env.XDG_CONFIG_HOME ? path.join(env.XDG_CONFIG_HOME, 'svc') : path.join(env.HOME || homedir(), '.config', 'svc'));
  return path.join(dir, 'config.json');
}

/** The stored config ({} when there is none). A file others can read is refused, not used. */
export function readConfig(env: NodeJS.ProcessEnv, warn: (text: string) => void): StoredConfig {
  const file = configPath(env);
  if (!existsSync(file)) return {};
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
    warn(`svc: ignoring ${file}: it is readable by other users (run chmod 600 on it, or svc login again)`);
    return {};
  }
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InputError(`${file} is not a JSON object`);
  const o = v as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : undefined);
  return { base_url: str('base_url'), api_key: str('api_key'), access_token: str('access_token'), email: str('email') };
}

/** Writes the config atomically with mode 0600 (directory 0700); returns the path. */
export function writeConfig(env: NodeJS.ProcessEnv, cfg: StoredConfig): string {
  const file = configPath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(cfg, null, 2)}\n`, { mode: 0o600 });
  // The mode of writeFileSync is masked by umask and ignored for an existing file: set it explicitly.
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

export function removeConfig(env: NodeJS.ProcessEnv): boolean {
  const file = configPath(env);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
