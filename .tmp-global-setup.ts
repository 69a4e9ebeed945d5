// TEMPORARY (helper's private run while the test-profile ports are held by an orphaned process): same as
// test/http/global-setup.ts but on other ports and data folder. Deleted after use.
import type { TestProject } from 'vitest/node';
import { Stack } from './infra/stack.js';

export default async function setup(project: TestProject) {
  const ports = { temporal: 27233, temporalUi: 28233, ferret: 47017, api: 28000 };
  const stack = new Stack({ profile: 'helper7' as any, ports, fresh: true, env: { SVC_AUTH_TRUSTED_PROXIES: '127.0.0.1,::1' } });
  try {
    await stack.up();
  } catch (err) {
    await stack.down();
    throw err;
  }
  project.provide('apiUrl', stack.apiUrl);
  project.provide('controlUrl', 'http://127.0.0.1:29999');
  project.provide('stackEnv', Object.fromEntries(Object.entries(stack.env).filter(([k]) => k.startsWith('SVC_') || k === 'MONGODB_URI' || k === 'TEMPORAL_ADDRESS')) as Record<string, string>);
  project.provide('ports', ports as any);
  project.provide('dataDir', stack.dataDir);
  return async () => {
    await stack.down();
  };
}
