// Small helpers for black-box HTTP tests against the stack started by global-setup.ts.
import { inject } from 'vitest';

export const apiUrl = () => inject('apiUrl');
export const stackEnv = () => inject('stackEnv');

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function http<T = any>(
  method: string,
  path: string,
  opts: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Buffer | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${apiUrl()}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export const post = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
  http<T>('POST', path, { body, headers });
export const get = <T = any>(path: string, headers?: Record<string, string>) => http<T>('GET', path, { headers });

/** Stops, starts or SIGKILLs a stack component through the global setup's control endpoint. */
export async function control(action: 'stop' | 'start' | 'kill9', component: 'temporal' | 'ferretdb' | 'worker' | 'api') {
  const res = await fetch(`${inject('controlUrl')}/${action}/${component}`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`control ${action} ${component} failed: ${await res.text()}`);
}
