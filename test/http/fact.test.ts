// POST /verify/fact through the real stack: deterministic verdicts with evidence offsets,
// the provider's advisory judgement (scripted provider server), the provider time-out (503),
// bad input (400/401) and batch items of type `fact`.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, stackEnv, type Member } from './helpers.js';
import { FACT_CLAIMS, providerCalls } from './provider-server.js';

const CONTEXT =
  '🗼 The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889 and is 330 metres tall. ' +
  'Paris is the capital of France. About 7 million people visit it every year. The tower is not painted red. ' +
  'Ticket sales rose by 12% in 2023.';

/** Code-point slice (the contract's offsets are Unicode code points). */
const cpSlice = (s: string, a: number, b: number) => [...s].slice(a, b).join('');

describe('POST /verify/fact', () => {
  let t: Member;
  const fact = (body: unknown, key = t.key) => post('/verify/fact', body, { 'x-api-key': key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('exact sentence support: SUPPORTED with the sentence as evidence (code-point offsets)', async () => {
    const res = await fact({ claim: 'Paris is the capital of France.', context: CONTEXT });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-workflow-id')).toMatch(/^verify-fact-/);
    expect(res.body).toMatchObject({
      verdict: 'SUPPORTED',
      confidence: 0.97,
      provider_used: 'local',
      provider_judgement: null,
      provider_error: null,
      signals: [{ kind: 'exact_sentence' }],
    });
    expect(res.body.reasoning).toMatch(/^Supported by the context sentence "Paris is the capital of France\."/);
    const [ev] = res.body.evidence;
    expect(ev).toMatchObject({ role: 'supporting_sentence', text: 'Paris is the capital of France.' });
    expect(cpSlice(CONTEXT, ev.start, ev.end)).toBe(ev.text);
    expect(typeof res.body.latency_ms).toBe('number');
  });

  it.each([
    ['The Eiffel Tower is 330 metres tall.', 'SUPPORTED', 'near_exact_sentence', 0.9],
    ['The Eiffel Tower is 300 metres tall.', 'REFUTED', 'quantity_mismatch', 0.9],
    ['The Eiffel Tower was completed in 1890.', 'REFUTED', 'date_mismatch', 0.9],
    ['Ticket sales rose by 15 percent in 2023.', 'REFUTED', 'quantity_mismatch', 0.9],
    ['Ticket sales fell by 12% in 2023.', 'REFUTED', 'antonym_flip', 0.8],
    ['The tower is painted red.', 'REFUTED', 'negation_flip', 0.8],
    ['Lyon is the capital of France.', 'REFUTED', 'entity_mismatch', 0.75],
  ])('%s → %s (%s)', async (claim, verdict, signal, confidence) => {
    const res = await fact({ claim, context: CONTEXT });
    expect(res.status).toBe(200);
    expect(res.body.verdict).toBe(verdict);
    expect(res.body.confidence).toBe(confidence);
    expect(res.body.signals.map((s: any) => s.kind)).toContain(signal);
    for (const ev of res.body.evidence) expect(cpSlice(CONTEXT, ev.start, ev.end)).toBe(ev.text);
  });

  it('a quantity contradiction names both values and points at the context value', async () => {
    const res = await fact({ claim: 'The Eiffel Tower is 300 metres tall.', context: CONTEXT });
    expect(res.body.reasoning).toContain('the claim states "300 metres" but the context states "330 metres" (length)');
    expect(res.body.evidence).toContainEqual(
      expect.objectContaining({ role: 'contradicting_span', text: '330 metres' }),
    );
  });

  it('an unrelated claim is INCONCLUSIVE with confidence 0 (fail closed)', async () => {
    const res = await fact({ claim: 'The tower is made of wood.', context: CONTEXT });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ verdict: 'INCONCLUSIVE', confidence: 0, provider_used: 'local' });
  });

  it.each([
    [{ context: CONTEXT }, "Invalid field 'claim': claim is required"],
    [{ claim: '', context: CONTEXT }, "Invalid field 'claim': claim must not be empty"],
    [{ claim: '   ', context: CONTEXT }, "Invalid field 'claim': claim must not be empty"],
    [{ claim: 'x' }, "Invalid field 'context': context is required"],
    [{ claim: 'x', context: ' \n ' }, "Invalid field 'context': context must not be empty"],
    [{ claim: 5, context: CONTEXT }, "Invalid field 'claim': claim must be a string"],
    [{ claim: 'x'.repeat(10_001), context: CONTEXT }, "Invalid field 'claim': claim must be at most 10000 characters"],
    [
      { claim: 'x', context: CONTEXT, provider: 'mystery' },
      "Unknown provider 'mystery'. Available providers: local, openai, anthropic.",
    ],
  ])('400 for %j', async (body, detail) => {
    const res = await fact(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail, code: expect.any(String), request_id: expect.any(String) });
  });

  it('unknown keys are ignored; no key is 401', async () => {
    const ok = await fact({ claim: 'Paris is the capital of France.', context: CONTEXT, colour: 'blue' });
    expect(ok.status).toBe(200);
    const res = await post('/verify/fact', { claim: 'a', context: 'b' });
    expect(res.status).toBe(401);
  });

  describe('with a model provider (scripted server)', () => {
    const openai = () => stackEnv().SVC_OPENAI_BASE_URL as string;

    it('no deterministic signal + "contradicted" with a quote found in the context → REFUTED at 0.6', async () => {
      const context = 'Some facts about landmarks. The Eiffel Tower stands in Paris. It is made of iron.';
      const res = await fact({ claim: FACT_CLAIMS.contradictedWithQuote, context, provider: 'openai' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        verdict: 'REFUTED',
        confidence: 0.6,
        provider_used: 'openai',
        provider_error: null,
        provider_judgement: { label: 'contradicted', quote: 'The Eiffel Tower stands in Paris', quote_found: true },
      });
      expect(res.body.signals).toContainEqual({
        kind: 'provider_entailment',
        detail: 'contradicted, backed by a quote found in the context',
      });
      const q = res.body.evidence.find((e: any) => e.role === 'provider_quote');
      expect(q.text).toBe('The Eiffel Tower stands in Paris');
      expect(cpSlice(context, q.start, q.end)).toBe(q.text);
    });

    it('the same judgement through the Anthropic wire format', async () => {
      const context = 'Some facts about landmarks. The Eiffel Tower stands in Paris.';
      const res = await fact({ claim: FACT_CLAIMS.contradictedWithQuote, context, provider: 'anthropic' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ verdict: 'REFUTED', confidence: 0.6, provider_used: 'anthropic' });
    });

    it('"contradicted" without a quote decides nothing: INCONCLUSIVE', async () => {
      const res = await fact({
        claim: FACT_CLAIMS.contradictedWithoutQuote,
        context: 'The Eiffel Tower is a landmark.',
        provider: 'openai',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        verdict: 'INCONCLUSIVE',
        confidence: 0,
        provider_judgement: { label: 'contradicted', quote: null, quote_found: false },
      });
      expect(res.body.reasoning).toMatch(/without a quote/);
    });

    it('"entailed" with a quote that is not in the context decides nothing', async () => {
      const res = await fact({
        claim: FACT_CLAIMS.entailed,
        context: 'The Eiffel Tower is a landmark of France.',
        provider: 'openai',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        verdict: 'INCONCLUSIVE',
        provider_judgement: { label: 'entailed', quote_found: false },
      });
    });

    it('a model never overturns a deterministic contradiction', async () => {
      // The script judges every unscripted claim "neutral"; the deterministic REFUTED stands.
      const res = await fact({
        claim: 'The Eiffel Tower was completed in 1890.',
        context: CONTEXT,
        provider: 'openai',
      });
      expect(res.body).toMatchObject({ verdict: 'REFUTED', confidence: 0.9, provider_judgement: { label: 'neutral' } });
    });

    it('provider time-out → 503 "Fact verification timed out."', async () => {
      const before = await providerCalls(openai(), FACT_CLAIMS.slow);
      const t0 = Date.now();
      const res = await fact({ claim: FACT_CLAIMS.slow, context: CONTEXT, provider: 'openai' });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        detail: 'Fact verification timed out.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
      expect(res.headers.get('x-workflow-id')).toMatch(/^verify-fact-/);
      expect(Date.now() - t0).toBeLessThan(15_000); // at a time-out (3 s provider, 8 s engine), not at the 20 s answer
      expect(await providerCalls(openai(), FACT_CLAIMS.slow)).toBe(before + 1);
    });
  });

  describe('batch items of type fact', () => {
    it('run through the fact engine; a missing context fails the item', async () => {
      const res = await post(
        '/verify/batch',
        {
          items: [
            { query: 'The Eiffel Tower is 300 metres tall.', type: 'fact', params: { context: CONTEXT } },
            { query: 'Paris is the capital of France.', type: 'fact' },
            {
              query: FACT_CLAIMS.contradictedWithQuote,
              type: 'fact',
              params: { context: 'The Eiffel Tower stands in Paris.', provider: 'anthropic' },
            },
            { query: 'x', type: 'fact', params: { context: 'y', provider: 'mystery' } },
          ],
        },
        { 'x-api-key': t.key },
      );
      expect(res.status).toBe(200);
      const items = res.body.items;
      expect(items[0]).toMatchObject({
        type: 'fact',
        status: 'completed',
        result: { verdict: 'REFUTED', provider_used: 'local' },
      });
      expect(items[1]).toMatchObject({
        type: 'fact',
        status: 'failed',
        error: 'Item failed: fact items need params.context, a non-empty string',
      });
      expect(items[2]).toMatchObject({
        status: 'completed',
        result: { verdict: 'REFUTED', provider_used: 'anthropic' },
      });
      expect(items[3]).toMatchObject({
        status: 'failed',
        error: "Item failed: Unknown provider 'mystery'. Available providers: local, openai, anthropic.",
      });
    });
  });
});
