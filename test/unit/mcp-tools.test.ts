// The MCP tool table in-process (api/mcp/tools.ts): every tool bound to a contract endpoint,
// schemas with an object root, the summaries, and the argument checks the transport itself needs
// (answered before any request). The calls themselves are proven black-box in test/http/mcp.test.ts.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MCP_TOOLS } from '../../contract/mcp.js';
import { ENDPOINTS } from '../../contract/endpoints.js';
import { MCP_TOOL_TABLE, callTool, summaryOf, toolJsonSchema } from '../../api/mcp/tools.js';
import type { Loopback } from '../../api/mcp/loopback.js';

/** A loopback that must not be reached: the checks under test answer before any request. */
const unreachable = { request: () => Promise.reject(new Error('no request expected')) } as unknown as Loopback;
const ctx = { loopback: unreachable, apiKey: 'svc_live_x', signal: new AbortController().signal };
const textOf = (r: Awaited<ReturnType<typeof callTool>>) => (r.content[0] as { text: string }).text;

describe('MCP tool table', () => {
  it('binds every tool to an endpoint of the contract, with object schemas at the root', () => {
    expect(MCP_TOOL_TABLE.size).toBe(14);
    for (const t of MCP_TOOLS) {
      const bound = MCP_TOOL_TABLE.get(t.name)!;
      expect(ENDPOINTS).toContain(bound.endpoint);
      expect(bound.listing.inputSchema.type).toBe('object');
      expect(bound.listing.outputSchema?.type).toBe('object');
      expect(bound.listing.outputSchema).not.toHaveProperty('$ref');
    }
  });

  it('inlines a root $ref and keeps the definitions for nested references', () => {
    const leaf = z.object({ a: z.string() }).meta({ id: 'Leaf' });
    const root = z.object({ leaf, n: z.number() }).meta({ id: 'Root' });
    const s = toolJsonSchema(root, 'output');
    expect(s).toMatchObject({ type: 'object', properties: { n: { type: 'number' } }, required: ['leaf', 'n'] });
    expect((s.definitions as Record<string, unknown>).Leaf).toMatchObject({ type: 'object' });
    const union = toolJsonSchema(
      z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false) })]),
      'output',
    );
    expect(union).toMatchObject({ type: 'object', anyOf: [{ type: 'object' }, { type: 'object' }] });
  });

  it('summaries: the verdict, admission, proof and attestation; batches by job', () => {
    expect(summaryOf('verify_math', { status: 'VERIFIED', proof_ref: 'sha256:ab', attestation: { id: 'att_1' } })).toBe(
      'math: VERIFIED (proof sha256:ab, attestation att_1)',
    );
    expect(summaryOf('verify_code', { status: 'VERIFIED', admission: 'BLOCKED', proof_ref: null })).toBe(
      'code: VERIFIED (admission BLOCKED)',
    );
    expect(summaryOf('verify_fact', { verdict: 'REFUTED' })).toBe('fact: REFUTED');
    expect(summaryOf('verify_rag', { verified: false })).toBe('rag: NOT VERIFIED');
    expect(summaryOf('attestation_verify', { valid: false, reason: 'expired' })).toBe('attestation: INVALID (expired)');
    expect(
      summaryOf('batch_status', {
        job_id: 'bj_1',
        status: 'running',
        completed_items: 1,
        failed_items: 1,
        total_items: 4,
      }),
    ).toBe('batch bj_1: running (2/4 items, 1 failed); read it later with batch_status');
  });

  it('transport checks name their field and send nothing', async () => {
    const t = (name: string) => MCP_TOOL_TABLE.get(name as never)!;
    expect(textOf(await callTool(t('verify_image'), { claim: 'x' }, ctx))).toBe(
      "image: Invalid field 'image_base64': is required",
    );
    expect(textOf(await callTool(t('verify_image'), { claim: 'x', image_base64: 'abc' }, ctx))).toBe(
      "image: Invalid field 'image_base64': must be standard base64",
    );
    expect(textOf(await callTool(t('verify_image'), { claim: ['x'], image_base64: 'aGk=' }, ctx))).toBe(
      "image: Invalid field 'claim': must be a string",
    );
    expect(textOf(await callTool(t('verify_stats'), { csv: 3, query: 'mean(a)' }, ctx))).toBe(
      "stats: Invalid field 'csv': must be a string",
    );
    expect(textOf(await callTool(t('batch_status'), { job_id: 7 }, ctx))).toMatch(
      /^batch_status: Invalid field 'job_id': /,
    );
    expect(textOf(await callTool(t('batch_submit'), { items: [], wait_seconds: -1 }, ctx))).toMatch(
      /^batch_submit: Invalid field 'wait_seconds': /,
    );
    expect((await callTool(t('batch_submit'), { items: [], wait_seconds: 'soon' }, ctx)).isError).toBe(true);
  });

  it('batch_submit with progress: notifications only ever grow, the last one says how the job ended', async () => {
    const job = (status: string, done: number) => ({
      job_id: 'bj_1',
      status,
      total_items: 3,
      completed_items: done,
      failed_items: 0,
      items: [],
    });
    const answers = [job('running', 0), job('running', 2), job('running', 3), job('completed', 3)];
    const paths: string[] = [];
    const scripted = {
      request: async (r: { method: string; path: string }) => {
        paths.push(`${r.method} ${r.path}`);
        const body = answers.shift()!;
        return {
          status: paths.length === 1 ? 202 : 200,
          headers: new Headers(),
          json: body,
          text: JSON.stringify(body),
        };
      },
    } as unknown as Loopback;
    const notes: Array<[number, number, string]> = [];
    const r = await callTool(
      MCP_TOOL_TABLE.get('batch_submit')!,
      { items: [{ query: '1+1', type: 'math' }], wait_seconds: 10 },
      {
        ...ctx,
        loopback: scripted,
        progress: async (p, total, message) => {
          notes.push([p, total, message]);
        },
      },
    );
    expect(paths).toEqual([
      'POST /verify/batch',
      'GET /verify/batch/bj_1',
      'GET /verify/batch/bj_1',
      'GET /verify/batch/bj_1',
    ]);
    expect(notes).toEqual([
      [0, 3, 'batch bj_1: running, 0/3 items'],
      [2, 3, 'batch bj_1: running, 2/3 items'],
      [3, 3, 'batch bj_1: completed, 3/3 items'],
    ]);
    expect(r.structuredContent).toMatchObject({ status: 'completed', completed_items: 3 });
  }, 15_000);

  it('batch_submit without a progress token returns the first answer; a caller gone ends the wait at once', async () => {
    let calls = 0;
    const running = {
      job_id: 'bj_2',
      status: 'running',
      total_items: 1,
      completed_items: 0,
      failed_items: 0,
      items: [],
    };
    const scripted = {
      request: async () => {
        calls++;
        return { status: 202, headers: new Headers(), json: running, text: '' };
      },
    } as unknown as Loopback;
    const plain = await callTool(MCP_TOOL_TABLE.get('batch_submit')!, { items: [] }, { ...ctx, loopback: scripted });
    expect(calls).toBe(1);
    expect(plain.structuredContent).toEqual(running);
    const gone = new AbortController();
    const started = Date.now();
    const waiting = callTool(
      MCP_TOOL_TABLE.get('batch_submit')!,
      { items: [], wait_seconds: 60 },
      { ...ctx, loopback: scripted, signal: gone.signal, progress: async () => gone.abort() },
    );
    const r = await waiting;
    expect(Date.now() - started).toBeLessThan(10_000); // the abort ended the wait, not wait_seconds' 60 s
    expect(calls).toBe(2);
    expect(r.structuredContent).toEqual(running);
  });
});
