// Sealed workflow inputs and the gateway configuration.
import { describe, expect, it } from 'vitest';
import { seal, unseal, SealError } from '../../core/sealed.js';
import { loadA2aConfig, agentForKey } from '../../core/a2a-config.js';
import { decideTool, decideVerify } from '../../engines/agents/decide.js';

describe('sealed inputs', () => {
  const secret = 'x'.repeat(64);
  it('round-trips and never shows the plaintext', () => {
    const s = seal({ query: 'svc_live_secret_value' }, secret, 'agent-verify');
    expect(JSON.stringify(s)).not.toContain('svc_live_secret_value');
    expect(unseal(s, secret, 'agent-verify')).toEqual({ query: 'svc_live_secret_value' });
  });
  it('fails closed on another purpose, another key, tampering or no key', () => {
    const s = seal({ a: 1 }, secret, 'agent-verify');
    expect(() => unseal(s, secret, 'agent-tool')).toThrow(SealError);
    expect(() => unseal(s, 'y'.repeat(64), 'agent-verify')).toThrow(SealError);
    // The first character changed, whatever it was (a fixed 'A' left it as it was in 1 of 64 runs).
    expect(() =>
      unseal({ ...s, ct: `${s.ct.startsWith('A') ? 'B' : 'A'}${s.ct.slice(1)}` }, secret, 'agent-verify'),
    ).toThrow(SealError);
    expect(() => seal({ a: 1 }, undefined, 'agent-verify')).toThrow(SealError);
  });
});

describe('gateway configuration', () => {
  it('parses keys and defaults', () => {
    const c = loadA2aConfig({
      SVC_A2A_API_KEYS: JSON.stringify({ ['k'.repeat(20)]: 'agent-a', ['j'.repeat(20)]: 'agent-b' }),
    });
    expect(c.keys.size).toBe(2);
    expect(agentForKey(c, 'k'.repeat(20))).toBe('agent-a');
    expect(agentForKey(c, 'j'.repeat(20))).toBe('agent-b');
    expect(agentForKey(c, 'z'.repeat(20))).toBeNull();
    expect(agentForKey(c, undefined)).toBeNull();
    expect(c).toMatchObject({ deploymentId: 'svc-local', engineTimeoutSeconds: 5, maxPayloadBytes: 524288 });
    expect(loadA2aConfig({}).keys.size).toBe(0);
  });
  it('refuses malformed settings', () => {
    expect(() => loadA2aConfig({ SVC_A2A_API_KEYS: '[1]' })).toThrow(/JSON object/);
    expect(() => loadA2aConfig({ SVC_A2A_API_KEYS: '{"short":"a"}' })).toThrow(/16 characters/);
    expect(() => loadA2aConfig({ SVC_A2A_API_KEYS: JSON.stringify({ ['k'.repeat(20)]: '' }) })).toThrow(/agent id/);
    expect(() => loadA2aConfig({ SVC_A2A_ENGINE_TIMEOUT_SECONDS: '0' })).toThrow(/SVC_A2A_ENGINE_TIMEOUT_SECONDS/);
    expect(() => loadA2aConfig({ SVC_A2A_ENGINE_TIMEOUT_SECONDS: '61' })).toThrow(/SVC_A2A_ENGINE_TIMEOUT_SECONDS/);
  });
});

describe('decisions', () => {
  const base = {
    kind: 'verify' as const,
    findings: [],
    tool_name: null,
    pinned_hash: null,
    presented_hash: null,
    tool_pin: 'not_run' as const,
    tool_poisoning: 'not_run' as const,
    parts: [{ index: 1, text: 'q', route: { engine: 'math' as const, input: {} }, reason: null }],
    claim: 'q',
    request_digest: 'd',
  };
  const ctx = { agent_id: 'agt_1', conversation_id: 'c', step_number: 1 };
  it('is VERIFIED only with a well-formed proof_ref from the engine', () => {
    expect(
      decideVerify({ ...base, outcome: 'clean' }, [{ status: 'VERIFIED', proof_ref: `sha256:${'a'.repeat(64)}` }], ctx)
        .status,
    ).toBe('VERIFIED');
    expect(
      decideVerify({ ...base, outcome: 'clean' }, [{ status: 'VERIFIED', proof_ref: 'sha256:zz' }], ctx).status,
    ).toBe('UNVERIFIABLE');
    expect(decideVerify({ ...base, outcome: 'clean' }, [{ status: 'VERIFIED' }], ctx).status).toBe('UNVERIFIABLE');
    expect(
      decideVerify(
        {
          ...base,
          outcome: 'flagged',
          findings: [
            {
              detector: 'exfiltration',
              kind: 'jwt',
              category: 'secret',
              location: 'query',
              encoding: 'plain',
              excerpt: 'x',
            },
          ],
        },
        [],
        ctx,
      ).refused,
    ).toBe(true);
  });
  it('denies a tool call when the engine gave no result (fail closed)', () => {
    const g = {
      kind: 'tool' as const,
      tool: 'shell',
      category: 'shell',
      dangerous: true,
      known: true,
      reasons: [],
      findings: [],
      checks: [
        {
          engine: 'code' as const,
          input: { code: 'ls', language: 'bash' },
          location: 'arguments.command',
          mode: 'strict' as const,
        },
      ],
      claim: '',
      request_digest: '',
    };
    expect(decideTool(g, [null]).body.decision).toBe('deny');
    expect(decideTool(g, []).body.decision).toBe('deny');
    expect(
      decideTool(g, [{ status: 'VERIFIED', developer_fields: { is_safe: true, is_valid: true } }]).body.decision,
    ).toBe('allow');
  });
});
