// Session 23 (review C1): SVC_AUDIT_TIME_ORDERED_IDS. On by default; `0`/`false` lets a rolling
// deploy start the API without `time_ordered_ids` in the runs it starts until every worker runs
// session 23's code (docs/store-access.md §17); anything else is refused at start. The rows read
// the input the API hands to the workflow start (the start itself stubbed: no Temporal here).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Connection } from '@temporalio/client';
import { ConfigError, loadConfig } from '../../core/config.js';
import { TemporalGateway } from '../../api/temporal.js';

const env = { SVC_WORKFLOW_INPUT_KEY: 'k'.repeat(64), SVC_TEMPORAL_PAYLOAD_ENCRYPTION: 'off' };

/** The workflow input runVerification builds for a math run under `knob` (unset: the default). */
async function startedInput(knob?: string): Promise<Record<string, unknown>> {
  const cfg = loadConfig({ ...env, ...(knob === undefined ? {} : { SVC_AUDIT_TIME_ORDERED_IDS: knob }) });
  const gateway = new TemporalGateway(Connection.lazy({ address: '127.0.0.1:1' }), cfg);
  const start = vi
    .spyOn(gateway as unknown as { start: (...a: unknown[]) => Promise<unknown> }, 'start')
    .mockRejectedValue(new Error('no start here'));
  await expect(gateway.runVerification('math', { expression: '1+1' } as never, { orgId: 'org_k' })).rejects.toThrow(
    'no start here',
  );
  expect(start).toHaveBeenCalledTimes(1);
  const options = start.mock.calls[0]?.[1] as { args: Record<string, unknown>[] };
  return options.args[0] as Record<string, unknown>;
}

afterEach(() => vi.restoreAllMocks());

describe('SVC_AUDIT_TIME_ORDERED_IDS', () => {
  it('default (unset), 1 and true: the API starts runs with `time_ordered_ids`', async () => {
    expect(loadConfig(env).SVC_AUDIT_TIME_ORDERED_IDS).toBe(true);
    expect((await startedInput()).time_ordered_ids).toBe(true);
    expect((await startedInput('1')).time_ordered_ids).toBe(true);
    expect((await startedInput('true')).time_ordered_ids).toBe(true);
  });

  it('0 and false: the API starts runs without the flag (hash-only ids, as session 22)', async () => {
    for (const off of ['0', 'false']) {
      const input = await startedInput(off);
      expect(input).not.toHaveProperty('time_ordered_ids');
      // The rest of the input is as with the flag on.
      expect(input.audit_in_engine_activity).toBe(true);
    }
  });

  it('anything else: refused at start with the knob’s own message', () => {
    for (const bad of ['yes', 'off', '2', '']) {
      expect(() => loadConfig({ ...env, SVC_AUDIT_TIME_ORDERED_IDS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ...env, SVC_AUDIT_TIME_ORDERED_IDS: bad })).toThrow(
        /^invalid configuration: SVC_AUDIT_TIME_ORDERED_IDS: must be 1\/true .* or 0\/false/,
      );
    }
  });
});
