// Where the project is, whichever form a process runs in: the TypeScript sources (tsx, vitest)
// or the compiled JavaScript twin of them under dist/service/<hash>/ (infra/service-build.ts),
// which the service's own processes run so they skip tsx's per-module loader.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/** The project's root folder (package.json, node_modules, .data, .tools). */
export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/**
 * A module of the project beside `base` (the caller's import.meta.url), named as its `.ts`
 * source: the compiled `.js` twin when the caller itself runs compiled.
 */
export function projectModuleUrl(tsRelative: string, base: string): URL {
  const url = new URL(tsRelative, base);
  return base.endsWith('.ts') ? url : new URL(url.href.replace(/\.ts$/, '.js'));
}

/**
 * Every file under the given folders of the project (missing folders skipped), as paths from
 * the root ('core/config.ts') in a stable order: what the workflow bundle and the compiled
 * service tree hash to know when they are stale.
 */
export function projectFiles(dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(PROJECT_ROOT, rel), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  for (const dir of dirs) if (existsSync(path.join(PROJECT_ROOT, dir))) walk(dir);
  return out;
}
