// The fact engine (engines/fact/): deterministic signals, provider combination, offsets.
import { describe, expect, it } from 'vitest';
import {
  analyzeFact,
  combineFact,
  compareQuantities,
  extractMentions,
  findQuote,
  providerExcerpt,
  splitSentences,
  tokenize,
  codePointOffset,
  PROVIDER_EXCERPT_CHARS,
} from '../../engines/fact/index.js';
import type { Quantity } from '../../engines/fact/quantities.js';

const CONTEXT =
  'The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889 and is 330 metres tall. ' +
  'The tower was designed by the company of Gustave Eiffel. Paris is the capital of France. About 7 million people visit it every year. ' +
  'The tower is not painted red. Ticket sales rose by 12% in 2023. The Louvre opened on 10 August 1793.';

describe('analyzeFact: verdicts', () => {
  it.each([
    ['Paris is the capital of France', 'SUPPORTED', 'exact_sentence'],
    ['The Eiffel Tower is 330 metres tall.', 'SUPPORTED', 'near_exact_sentence'],
    ['The Eiffel Tower is 330 m tall', 'SUPPORTED', 'near_exact_sentence'],
    ['The Eiffel Tower was completed in 1889', 'SUPPORTED', 'near_exact_sentence'],
    ['Ticket sales rose by 12 percent in 2023', 'SUPPORTED', 'near_exact_sentence'],
    ['The Louvre opened on August 10, 1793', 'SUPPORTED', 'near_exact_sentence'],
    ['The Eiffel Tower is 300 metres tall.', 'REFUTED', 'quantity_mismatch'],
    ['It was completed in 1890.', 'REFUTED', 'date_mismatch'],
    ['The Louvre opened on 11 August 1793', 'REFUTED', 'date_mismatch'],
    ['Ticket sales rose by 15% in 2023', 'REFUTED', 'quantity_mismatch'],
    ['Fewer than 5 million people visit the tower every year', 'REFUTED', 'quantity_mismatch'],
    ['Lyon is the capital of France', 'REFUTED', 'entity_mismatch'],
    ['Paris is not the capital of France', 'REFUTED', 'negation_flip'],
    ['The tower is painted red', 'REFUTED', 'negation_flip'],
    ['Ticket sales fell by 12% in 2023', 'REFUTED', 'antonym_flip'],
  ])('%s → %s (%s)', (claim, verdict, signal) => {
    const r = analyzeFact(claim, CONTEXT);
    expect(r.verdict).toBe(verdict);
    expect(r.signals.map((s) => s.kind)).toContain(signal);
    expect(r.confidence).toBeGreaterThan(0.7);
    expect(r.evidence.length).toBeGreaterThan(0);
  });

  it.each([
    'The tower is made of wood',
    'The Eiffel Tower is 1,083 feet tall', // 330.1 m: not settled by "330 metres" at that precision
    'Berlin has many museums',
    'Water boils at 100 degrees Celsius',
    'The Eiffel Tower is in Berlin', // "is in" vs "in Paris, France" of another predicate: not the same place
  ])('%s → INCONCLUSIVE', (claim) => {
    const r = analyzeFact(claim, CONTEXT);
    expect(r.verdict).toBe('INCONCLUSIVE');
    expect(r.confidence).toBe(0);
  });

  it('hedged sentences never support: "It is a myth that ..."', () => {
    const r = analyzeFact(
      'Bulls are enraged by the colour red',
      'It is a myth that bulls are enraged by the colour red.',
    );
    expect(r.verdict).toBe('INCONCLUSIVE');
    expect(r.reasoning).toMatch(/myth/);
  });

  it('a context that both supports and contradicts the claim is INCONCLUSIVE', () => {
    const r = analyzeFact(
      'The bridge is 120 metres long',
      'The bridge is 120 metres long. The bridge is 150 metres long.',
    );
    expect(r.verdict).toBe('INCONCLUSIVE');
    expect(r.evidence.map((e) => e.role).sort()).toEqual(['contradicting_sentence', 'supporting_sentence']);
  });

  it('a negation in a long sentence about other things is not a flip', () => {
    const r = analyzeFact(
      'Paris is the capital of France',
      'Paris, which is not the largest city of Europe by area and was not always the seat of the kings, who often preferred Versailles and other palaces, is the capital of France.',
    );
    expect(r.verdict).not.toBe('REFUTED');
  });

  it('"not only" is not a negation', () => {
    expect(
      analyzeFact('The museum sells tickets online', 'The museum not only sells tickets online but also at the door.')
        .verdict,
    ).not.toBe('REFUTED');
  });

  it('a text without punctuation is cut into bounded sentences (no giant sentence covers every claim)', () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const sentences = splitSentences(words, tokenize(words));
    expect(sentences.length).toBeGreaterThanOrEqual(5);
    expect(analyzeFact('word1 word399 word200', words).verdict).toBe('INCONCLUSIVE');
  });

  it('empty of content: INCONCLUSIVE', () => {
    expect(analyzeFact('it is', CONTEXT).verdict).toBe('INCONCLUSIVE');
  });

  it('evidence offsets point at the deciding sentence', () => {
    const r = analyzeFact('The Eiffel Tower is 300 metres tall.', CONTEXT);
    const sentence = r.evidence.find((e) => e.role === 'contradicting_sentence')!;
    expect(CONTEXT.slice(sentence.start, sentence.end)).toBe('It was completed in 1889 and is 330 metres tall.');
    const span = r.evidence.find((e) => e.role === 'contradicting_span')!;
    expect(CONTEXT.slice(span.start, span.end)).toBe('330 metres');
  });

  it('stays fast on a 1,000,000-character context', () => {
    const big = `${'Filler sentence number one talks about rivers and hills. '.repeat(17_000)}The reactor produces 450 megawatts.`;
    expect(big.length).toBeGreaterThan(900_000);
    const t0 = performance.now();
    const r = analyzeFact('The reactor produces 400 megawatts', big);
    // Linear: about a second on a busy core; a quadratic pass would take minutes.
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(r.verdict).toBe('REFUTED');
  });
});

describe('quantities and dates', () => {
  const q = (s: string) => extractMentions(tokenize(s)).filter((m): m is Quantity => m.kind === 'quantity');
  it('units convert to a base unit', () => {
    expect(q('5 km')[0]).toMatchObject({ dim: 'length', value: 5000 });
    expect(q('12 %')[0]).toMatchObject({ dim: 'percent', value: 12 });
    expect(q('12 per cent')[0]).toMatchObject({ dim: 'percent', value: 12 });
    expect(q('$3.5 million')[0]).toMatchObject({ dim: 'currency:USD', value: 3_500_000 });
    expect(q('5,000 employees')[0]).toMatchObject({ dim: 'count:employee', value: 5000 });
    expect(q('more than 40 kg')[0]).toMatchObject({ dim: 'mass', op: 'gt', value: 40 });
    expect(q('100 degrees Celsius')[0]!.value).toBeCloseTo(373.15, 6);
  });
  it('interval comparison respects the written precision', () => {
    const [a] = q('1.5 million people');
    const [b] = q('1,534,000 people');
    expect(compareQuantities(a!, b!)).toBe('support');
    expect(compareQuantities(q('3 million people')[0]!, b!)).toBe('contradict');
    expect(compareQuantities(q('over 1 million people')[0]!, b!)).toBe('support');
    expect(compareQuantities(q('more than 300 m')[0]!, q('300 m')[0]!)).toBe('contradict');
  });
  it('dates: ISO, "D Month YYYY", "Month D, YYYY", bare years', () => {
    const d = (s: string) => extractMentions(tokenize(s)).filter((m) => m.kind === 'date');
    expect(d('on 1789-07-14')[0]).toMatchObject({ year: 1789, month: 7, day: 14 });
    expect(d('on 14 July 1789')[0]).toMatchObject({ year: 1789, month: 7, day: 14 });
    expect(d('on July 14, 1789')[0]).toMatchObject({ year: 1789, month: 7, day: 14 });
    expect(d('in 1889')[0]).toMatchObject({ year: 1889, month: null });
    expect(d('2000 people came')).toEqual([]);
    expect(d('you may go')).toEqual([]);
  });
});

describe('combineFact: the provider judgement is advisory', () => {
  const ctx = 'The Eiffel Tower stands in Paris. It opened in 1889.';
  it('no deterministic signal + a label backed by a quote found in the context → that label at 0.6', () => {
    const det = analyzeFact('The Eiffel Tower is in Berlin.', ctx);
    expect(det.verdict).toBe('INCONCLUSIVE');
    const out = combineFact(
      ctx,
      det,
      { label: 'contradicted', quote: 'the eiffel  tower stands in Paris', reasoning: 'r' },
      null,
    );
    expect(out.verdict).toBe('REFUTED');
    expect(out.confidence).toBe(0.6);
    const q = out.evidence.find((e) => e.role === 'provider_quote')!;
    expect(q).toMatchObject({ start: 0, end: 32, text: 'The Eiffel Tower stands in Paris' });
    expect(out.provider_judgement).toMatchObject({ label: 'contradicted', quote_found: true });
  });
  it('a quote that does not occur, or no quote, decides nothing', () => {
    const det = analyzeFact('The Eiffel Tower is in Berlin.', ctx);
    expect(
      combineFact(ctx, det, { label: 'contradicted', quote: 'The tower stands in Berlin', reasoning: 'r' }, null)
        .verdict,
    ).toBe('INCONCLUSIVE');
    expect(combineFact(ctx, det, { label: 'contradicted', quote: null, reasoning: 'r' }, null).verdict).toBe(
      'INCONCLUSIVE',
    );
    expect(combineFact(ctx, det, { label: 'entailed', quote: 'Paris', reasoning: 'too short' }, null).verdict).toBe(
      'INCONCLUSIVE',
    );
  });
  it('a model never overturns a deterministic contradiction', () => {
    const det = analyzeFact('It opened in 1890.', ctx);
    expect(det.verdict).toBe('REFUTED');
    expect(
      combineFact(ctx, det, { label: 'entailed', quote: 'It opened in 1889.', reasoning: 'r' }, null).verdict,
    ).toBe('REFUTED');
  });
  it('deterministic support + a quoted contradiction → INCONCLUSIVE', () => {
    const det = analyzeFact('The Eiffel Tower stands in Paris', ctx);
    expect(det.verdict).toBe('SUPPORTED');
    expect(
      combineFact(ctx, det, { label: 'contradicted', quote: 'It opened in 1889', reasoning: 'r' }, null).verdict,
    ).toBe('INCONCLUSIVE');
  });
  it('offsets are Unicode code points (an emoji before the sentence counts once)', () => {
    const c = '🚀 Launch day. The rocket weighs 500 tonnes.';
    const out = combineFact(c, analyzeFact('The rocket weighs 400 tonnes', c), null, null);
    const s = out.evidence.find((e) => e.role === 'contradicting_sentence')!;
    expect(s.text).toBe('The rocket weighs 500 tonnes.');
    expect([...c].slice(s.start, s.end).join('')).toBe(s.text);
    expect(codePointOffset(c, 2)).toBe(1);
  });
  it('findQuote ignores case and whitespace runs; the provider excerpt is bounded', () => {
    expect(findQuote('Alpha  beta\n gamma delta', 'BETA GAMMA delta')).toEqual({ start: 7, end: 24 });
    const long = `${'Unrelated words about weather and ships. '.repeat(1000)}The bridge is 120 metres long.`;
    const ex = providerExcerpt(long, analyzeFact('The bridge is 100 metres long', long));
    expect(ex.length).toBeLessThanOrEqual(PROVIDER_EXCERPT_CHARS);
    expect(ex).toContain('The bridge is 120 metres long.');
  });
});

describe('runFact (the activity body) with a stub judge', () => {
  const input = {
    claim: 'The Eiffel Tower is in Berlin.',
    context: 'The Eiffel Tower stands in Paris.',
    provider: 'openai',
  };
  it('a malformed or refused answer keeps the deterministic verdict and names the failure', async () => {
    const { runFact } = await import('../../activities/verify-fact.js');
    for (const code of ['malformed_answer', 'refused', 'truncated']) {
      const r = await runFact(
        { providerTimeoutMs: 1000, judge: async () => Promise.reject(Object.assign(new Error('x'), { code })) },
        input,
      );
      expect(r).toMatchObject({
        verdict: 'INCONCLUSIVE',
        provider_error: code,
        provider_judgement: null,
        provider_used: 'openai',
      });
    }
  });
  it('a judge slower than the provider time-out gives timed_out (the route answers 503)', async () => {
    const { runFact } = await import('../../activities/verify-fact.js');
    const r = await runFact({ providerTimeoutMs: 50, judge: () => new Promise(() => undefined) }, input);
    expect(r).toEqual({ timed_out: true, detail: 'Fact verification timed out.', provider_used: 'openai' });
  });
  it('local never calls a judge', async () => {
    const { runFact } = await import('../../activities/verify-fact.js');
    let called = false;
    const r = await runFact(
      {
        providerTimeoutMs: 50,
        judge: async () => ((called = true), { label: 'entailed', quote: null, reasoning: '' }),
      },
      { ...input, provider: 'local' },
    );
    expect(called).toBe(false);
    expect(r).toMatchObject({ provider_used: 'local', provider_judgement: null });
  });
});
