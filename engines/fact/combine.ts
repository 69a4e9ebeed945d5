// Combines the deterministic analysis with a provider's entailment judgement, and shapes the
// answer. The judgement is advisory: a model's label counts only with a quote that really
// occurs in the context (compared with whitespace collapsed and case ignored), and it can
// never overturn a deterministic contradiction. Rules:
//   deterministic REFUTED                         → REFUTED (a model saying "entailed" lowers nothing)
//   deterministic SUPPORTED + model contradicted  → INCONCLUSIVE when the model's quote is found
//   deterministic SUPPORTED otherwise             → SUPPORTED
//   deterministic INCONCLUSIVE + model label with a found quote → that label (confidence ≤ 0.6)
//   anything else                                 → INCONCLUSIVE
import { analyzeFact, type DeterministicFact, type FactSignal, type FactVerdict, type RawEvidence } from './analyze.js';
import { codePointOffset } from './tokens.js';

export interface EntailmentInput {
  label: 'entailed' | 'contradicted' | 'neutral';
  quote: string | null;
  reasoning: string;
}

export const PROVIDER_ONLY_CONFIDENCE = 0.6;
/** A quote shorter than this (after trimming) is too weak to back a verdict. */
export const MIN_QUOTE_CHARS = 8;
/** The provider sees at most this many characters of context: the best-matching sentences. */
export const PROVIDER_EXCERPT_CHARS = 8000;

export interface FactOutcome {
  verdict: FactVerdict;
  confidence: number;
  reasoning: string;
  evidence: Array<{ start: number; end: number; text: string; role: RawEvidence['role'] }>;
  signals: Array<{ kind: FactSignal['kind'] | 'provider_entailment'; detail: string }>;
  provider_judgement: {
    label: EntailmentInput['label'];
    quote: string | null;
    quote_found: boolean;
    reasoning: string;
  } | null;
}

/** Finds `quote` in `text` ignoring case and runs of whitespace; returns UTF-16 offsets. */
export function findQuote(text: string, quote: string): { start: number; end: number } | null {
  const q = collapse(
    quote
      .trim()
      .replace(/^["“'‘]|["”'’]$/g, '')
      .trim(),
  );
  if (q.text.length < MIN_QUOTE_CHARS) return null;
  const t = collapse(text);
  const at = t.text.indexOf(q.text);
  if (at < 0) return null;
  return { start: t.map[at]!, end: t.map[at + q.text.length - 1]! + 1 };
}

/** Lower-cases and collapses whitespace runs to one space; map[i] is the original offset of char i. */
function collapse(s: string): { text: string; map: Int32Array } {
  const map = new Int32Array(s.length);
  let out = '';
  const parts: string[] = [];
  let n = 0;
  let space = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const ws = c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\u00a0' || c === '\f' || c === '\v';
    if (ws) {
      if (space || n === 0) continue;
      space = true;
      parts.push(' ');
      map[n++] = i;
      continue;
    }
    space = false;
    parts.push(c.toLowerCase().length === 1 ? c.toLowerCase() : c);
    map[n++] = i;
    if (parts.length >= 8192) {
      out += parts.join('');
      parts.length = 0;
    }
  }
  out += parts.join('');
  return { text: out, map: map.subarray(0, n) };
}

/** The context the provider sees: the best-matching sentences in document order, bounded. */
export function providerExcerpt(context: string, det: DeterministicFact): string {
  if (context.length <= PROVIDER_EXCERPT_CHARS) return context;
  const picked: Array<{ start: number; end: number }> = [];
  let used = 0;
  for (const r of det.ranked) {
    const len = r.end - r.start;
    if (used + len > PROVIDER_EXCERPT_CHARS) continue;
    picked.push(r);
    used += len + 1;
  }
  if (picked.length === 0) return context.slice(0, PROVIDER_EXCERPT_CHARS);
  return picked
    .sort((a, b) => a.start - b.start)
    .map((r) => context.slice(r.start, r.end))
    .join('\n');
}

export function combineFact(
  context: string,
  det: DeterministicFact,
  judgement: EntailmentInput | null,
  providerNote: string | null,
): FactOutcome {
  const toWire = (e: RawEvidence) => {
    const text = context.slice(e.start, e.end);
    return {
      start: codePointOffset(context, e.start),
      end: codePointOffset(context, e.end),
      text: text.length > 2000 ? `${text.slice(0, 2000)}…` : text,
      role: e.role,
    };
  };
  let verdict = det.verdict;
  let confidence = det.confidence;
  let reasoning = det.reasoning;
  const evidence = [...det.evidence];
  const signals: FactOutcome['signals'] = det.signals.map((s) => ({ kind: s.kind, detail: s.detail }));
  let pj: FactOutcome['provider_judgement'] = null;

  if (judgement) {
    const found = judgement.quote ? findQuote(context, judgement.quote) : null;
    pj = {
      label: judgement.label,
      quote: judgement.quote,
      quote_found: found !== null,
      reasoning: judgement.reasoning.slice(0, 2000),
    };
    const quoteNote =
      judgement.quote === null
        ? 'without a quote'
        : found
          ? 'with a quote found in the context'
          : 'with a quote that does not occur in the context';
    const modelSays = `The provider judged the claim ${judgement.label} ${quoteNote}.`;
    if (found && judgement.label !== 'neutral') {
      evidence.push({ start: found.start, end: found.end, role: 'provider_quote' });
      signals.push({
        kind: 'provider_entailment',
        detail: `${judgement.label}, backed by a quote found in the context`,
      });
    }
    if (det.verdict === 'REFUTED') {
      reasoning = `${det.reasoning} ${modelSays}${judgement.label === 'entailed' ? ' A deterministic contradiction is not overturned by a model.' : ''}`;
    } else if (det.verdict === 'SUPPORTED') {
      if (judgement.label === 'contradicted' && found) {
        verdict = 'INCONCLUSIVE';
        confidence = 0;
        reasoning = `${det.reasoning} But the provider judged it contradicted, quoting a span of the context; the two disagree, so the verdict is INCONCLUSIVE.`;
      } else reasoning = `${det.reasoning} ${modelSays}`;
    } else if (found && judgement.label !== 'neutral') {
      verdict = judgement.label === 'entailed' ? 'SUPPORTED' : 'REFUTED';
      confidence = PROVIDER_ONLY_CONFIDENCE;
      reasoning = `${modelSays} No deterministic signal decided the claim (${det.reasoning}) The model's judgement is backed by the quoted span, so it stands with limited confidence.`;
    } else {
      reasoning =
        `${det.reasoning} ${modelSays} ${judgement.label === 'neutral' ? '' : 'A judgement without a quote found in the context does not decide the claim.'}`.trim();
    }
  } else if (providerNote) {
    reasoning = `${det.reasoning} ${providerNote}`;
  }
  return {
    verdict,
    confidence,
    reasoning,
    evidence: evidence.map(toWire),
    signals,
    provider_judgement: pj,
  };
}

export { analyzeFact };
