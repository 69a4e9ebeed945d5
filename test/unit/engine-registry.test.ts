// The engine registry (core/engines.ts) is the one table the workflows, the worker, the gateway
// and the routes read: its deadlines and modes are checked here against what the contract and
// the configuration say, and the maps that name each engine's workflow and activities by
// reference (api/workflows.ts, workflows/engine-activities.ts) against the registry.
import { describe, expect, it } from 'vitest';
import {
  ENGINES,
  ENGINE_NAMES,
  EAGER_ENGINES,
  activityModeFor,
  logicNaturalLanguageDeadlineMs,
  type EngineDeadlineConfig,
} from '../../core/engines.js';
import * as workflows from '../../workflows/index.js';
import { batchItemActivities, batchItemActivityOf, engineActivities } from '../../workflows/engine-activities.js';
import { verificationWorkflows } from '../../api/workflows.js';
import type { VerificationActivities } from '../../activities/index.js';
import { BATCH_ITEM_TYPES } from '../../contract/batch-limits.js';

const cfg: EngineDeadlineConfig = {
  SVC_MATH_TIMEOUT: 5,
  SVC_Z3_TIMEOUT: 15,
  SVC_CODE_VERIFY_TIMEOUT: 10,
  SVC_PROVIDER_TIMEOUT: 30,
  SVC_SANDBOX_ACQUIRE_TIMEOUT: 10,
};

describe('engine registry', () => {
  it('has the eleven engines of the contract, each with its own activity', () => {
    expect(ENGINE_NAMES).toEqual([
      'math',
      'logic',
      'code',
      'sql',
      'process',
      'rag',
      'consensus',
      'stats',
      'fact',
      'image',
      'natural_language',
    ]);
    // The workflows' engine map, built over a stand-in for the activity proxies: each entry is the activity of that name.
    const named = new Proxy({}, { get: (_t, name) => name }) as unknown as VerificationActivities;
    const map = engineActivities(named) as unknown as Record<string, string>;
    const direct = ENGINE_NAMES.filter((e) => verificationWorkflows[e].name === 'verifyWorkflow');
    expect(Object.keys(map).sort()).toEqual([...direct].sort());
    expect(new Set(Object.values(map)).size).toBe(direct.length);
    expect(map.math).toBe('verifyMathActivity');
    // The one provider-first engine starts providerVerifyWorkflow, whose steps are its own.
    expect(ENGINE_NAMES.filter((e) => !direct.includes(e))).toEqual(['natural_language']);
    expect(ENGINE_NAMES.filter((e) => 'providerFirst' in ENGINES[e])).toEqual(['natural_language']);
    expect(verificationWorkflows.natural_language.name).toBe('providerVerifyWorkflow');
  });

  it('derives each deadline from the configuration the contract names', () => {
    const ms = (e: keyof typeof ENGINES, input: unknown = {}) => ENGINES[e].deadlineMs(cfg, input);
    expect(ms('math')).toBe(5_000);
    expect(ms('logic')).toBe(18_000);
    expect(logicNaturalLanguageDeadlineMs(cfg)).toBe(48_000);
    expect(ms('code')).toBe(10_000);
    expect(ms('sql')).toBe(10_000);
    expect(ms('process')).toBe(5_000);
    expect(ms('rag')).toBe(5_000);
    expect(ms('consensus')).toBe(35_000);
    expect(ms('stats')).toBe(35_000);
    expect(ms('fact')).toBe(35_000);
    expect(ms('natural_language')).toBe(35_000);
    // A vision model adds its time-out only when one is asked.
    expect(ms('image', { provider: 'local' })).toBe(20_000);
    expect(ms('image', { provider: 'openai' })).toBe(50_000);
    for (const e of ENGINE_NAMES)
      expect(ENGINES[e].timeoutDetail).toMatch(/^[A-Z][A-Za-z-]* verification timed out\.$/);
  });

  it('runs only the light engines locally in auto mode, and eagerly only those that load no engine in the caller', () => {
    expect(ENGINE_NAMES.filter((e) => activityModeFor(e, 'auto') === 'local')).toEqual([
      'math',
      'sql',
      'process',
      'rag',
      'natural_language',
    ]);
    expect(activityModeFor('code', 'local')).toBe('local');
    expect(activityModeFor('math', 'normal')).toBe('normal');
    expect([...EAGER_ENGINES]).toEqual(['math', 'process', 'rag']);
  });

  it("starts, for every engine, a workflow that workflows/index.ts exports under the reference's name", () => {
    for (const e of ENGINE_NAMES) {
      const name = verificationWorkflows[e].name;
      expect(typeof (workflows as Record<string, unknown>)[name]).toBe('function');
    }
  });

  it('gives every batch item type an item activity, except the one the batch workflow runs itself', () => {
    const named = new Proxy({}, { get: (_t, name) => name }) as unknown as VerificationActivities;
    const map = batchItemActivities(named);
    const own = BATCH_ITEM_TYPES.filter((t) => batchItemActivityOf(map, t) !== null);
    expect(own).toEqual(['logic', 'math', 'code', 'fact', 'sql']);
    expect(String(batchItemActivityOf(map, 'math'))).toBe('verifyMathBatchItemActivity');
    // natural_language items run the provider steps, stats/image are not batch types.
    expect(BATCH_ITEM_TYPES.filter((t) => batchItemActivityOf(map, t) === null)).toEqual(['natural_language']);
    expect(batchItemActivityOf(map, 'image')).toBeNull();
    expect(batchItemActivityOf(map, 'no-such-type')).toBeNull();
    expect(batchItemActivityOf(map, 'toString')).toBeNull();
  });
});
