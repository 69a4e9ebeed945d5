// The environment that makes a service process record its store commands
// (test/store-commands/capture.mjs), for a Stack's `env`.
import path from 'node:path';
import { PROJECT_ROOT } from '../../core/project-paths.js';

export function captureEnv(dir: string): Record<string, string> {
  const preload = path.join(PROJECT_ROOT, 'test', 'store-commands', 'capture.mjs');
  const prev = process.env.NODE_OPTIONS ? `${process.env.NODE_OPTIONS} ` : '';
  return {
    NODE_OPTIONS: `${prev}--enable-source-maps --import ${preload}`,
    SVC_STORE_CAPTURE_DIR: dir,
    SVC_STORE_CAPTURE_ROOT: PROJECT_ROOT,
  };
}
