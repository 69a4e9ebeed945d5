// Layering: api/ imports contract/, core/, workflow types and itself only (infra/api-imports.ts).
import { describe, expect, it } from 'vitest';
import { apiImports, apiRuntimeClosure, isForbidden, isRouteToRoute } from '../../infra/api-imports.js';

/**
 * The one known exception, kept as narrow as possible: the logic DSL front end (parse + type
 * check, no solver) that lets /verify/logic answer 400/403 before a workflow exists. Adding
 * anything here needs a reason in docs/architecture.md.
 */
const ALLOWED = new Set([
  'api/routes/verify-logic.ts → engines/logic/compile.ts',
  'api/routes/verify-logic.ts → engines/logic/detect.ts',
  'api/routes/verify-logic.ts → engines/logic/errors.ts',
]);

describe('api/ imports', () => {
  it('never reach activities/ or engines/, and workflows/ for types only', () => {
    const bad = apiImports()
      .filter(isForbidden)
      .map((e) => `${e.from} → ${e.to}`)
      .filter((e) => !ALLOWED.has(e));
    expect(bad).toEqual([]);
  });

  it('the API process loads no activity, workflow, worker or engine pool module', () => {
    // persistence/ comes in through the core/ facades (core/accounts.ts, …): the store's query modules.
    const outside = [...apiRuntimeClosure()].filter((f) => !/^(api|contract|core|persistence)\//.test(f));
    expect(outside.filter((f) => !f.startsWith('engines/logic/'))).toEqual([]);
    // The logic front end only: never the Z3 pool or solver.
    expect(outside.filter((f) => /logic\/(pool|solve|index)\.ts$/.test(f))).toEqual([]);
  });

  it('no route file imports another route file (shared helpers live in api/ or core/)', () => {
    const edges = apiImports();
    // The scan sees the route files at all (guards against a path change making this vacuous).
    expect(edges.some((e) => e.from === 'api/routes/compliance.ts')).toBe(true);
    expect(edges.filter(isRouteToRoute).map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });

  it('reaches the store through core/ only: a direct import of persistence/ is refused', () => {
    expect(isForbidden({ from: 'api/routes/auth.ts', to: 'persistence/accounts.ts', typeOnly: false })).toBe(true);
    expect(isForbidden({ from: 'api/routes/auth.ts', to: 'persistence/accounts.ts', typeOnly: true })).toBe(true);
    expect(isForbidden({ from: 'api/routes/auth.ts', to: 'core/accounts.ts', typeOnly: false })).toBe(false);
    // The facades do lead there: the closure sees persistence/ (guards against this test going vacuous).
    expect([...apiRuntimeClosure()].some((f) => f === 'persistence/accounts.ts')).toBe(true);
  });

  it('detects a route → route edge', () => {
    expect(isRouteToRoute({ from: 'api/routes/badges.ts', to: 'api/routes/attestations.ts', typeOnly: false })).toBe(
      true,
    );
    expect(isRouteToRoute({ from: 'api/routes/badges.ts', to: 'api/routes/attestations.ts', typeOnly: true })).toBe(
      true,
    );
    expect(isRouteToRoute({ from: 'api/routes/badges.ts', to: 'api/attestations.ts', typeOnly: false })).toBe(false);
    expect(isRouteToRoute({ from: 'api/app.ts', to: 'api/routes/badges.ts', typeOnly: false })).toBe(false);
  });

  it('detects a forbidden edge', () => {
    expect(isForbidden({ from: 'api/x.ts', to: 'activities/verify-math.ts', typeOnly: true })).toBe(true);
    expect(isForbidden({ from: 'api/x.ts', to: 'workflows/verify.ts', typeOnly: false })).toBe(true);
    expect(isForbidden({ from: 'api/x.ts', to: 'workflows/verify.ts', typeOnly: true })).toBe(false);
    expect(isForbidden({ from: 'api/x.ts', to: 'contract/math.ts', typeOnly: false })).toBe(false);
  });
});
