// The deterministic part of fact verification: the claim against its best-matching context
// sentences. Signals, in the order they are looked for:
//   - exact support: the claim's words appear as one run inside a sentence;
//   - near-exact support: every content word, number, date and name of the claim is in one
//     sentence, with the same polarity and no hedge ("myth", "allegedly", "if"...);
//   - contradictions inside a sentence that otherwise matches the claim: a quantity or a date
//     whose interval is disjoint from the claim's, a negation flip, an antonym flip, a named
//     entity in the claim's place that is not the claim's.
// Nothing else decides: a claim that is neither supported nor contradicted is INCONCLUSIVE.
// Linear in the size of the context (tokenizing, sentence splitting and scoring are single
// passes; only the best few sentences are compared in detail).
import { ANTONYMS, HEDGES, STOPWORDS, isNegationToken } from './lexicon.js';
import {
  compareDates,
  compareQuantities,
  dimLabel,
  extractMentions,
  type DateMention,
  type Mention,
  type Quantity,
} from './quantities.js';
import { isContentWord, splitSentences, stem, tokenize, type Sentence, type Token } from './tokens.js';

export type FactVerdict = 'SUPPORTED' | 'REFUTED' | 'INCONCLUSIVE';

export type SignalKind =
  | 'exact_sentence'
  | 'near_exact_sentence'
  | 'quantity_mismatch'
  | 'date_mismatch'
  | 'negation_flip'
  | 'antonym_flip'
  | 'entity_mismatch';

export type EvidenceRole =
  'supporting_sentence' | 'contradicting_sentence' | 'contradicting_span' | 'best_match' | 'provider_quote';

/** A context span; offsets are UTF-16 code units here (the activity converts them for the wire). */
export interface RawEvidence {
  start: number;
  end: number;
  role: EvidenceRole;
}

export interface FactSignal {
  kind: SignalKind;
  detail: string;
  sentence: number;
}

export interface DeterministicFact {
  verdict: FactVerdict;
  confidence: number;
  reasoning: string;
  signals: FactSignal[];
  evidence: RawEvidence[];
  /** Sentence spans ranked by how much of the claim they cover (best first), for the provider excerpt. */
  ranked: Array<{ start: number; end: number; coverage: number }>;
}

/** Claims longer than this are refused by the contract schema; the engine does not re-check. */
export const CONFIDENCE = {
  exact: 0.97,
  nearExact: 0.9,
  quantity: 0.9,
  date: 0.9,
  polarity: 0.8,
  entity: 0.75,
} as const;

/** Minimum share of the claim's other content words a sentence must match before its mismatch counts. */
const ALIGN_FOR_VALUE = 0.6;
const ALIGN_FOR_POLARITY = 0.75;
const ALIGN_FOR_ENTITY = 0.75;
/** Sentences compared in detail. */
const CANDIDATES = 5;

interface Analysed {
  tokens: Token[];
  mentions: Mention[];
  /** Token indices inside a mention. */
  inMention: Uint8Array;
  content: Set<string>;
  /** Every word's stem (content or not). */
  allStems: Set<string>;
  negations: number;
  hedges: Set<string>;
  entities: Entity[];
}

interface Entity {
  stems: string[];
  text: string;
  first: number;
  last: number;
  /** The lower-cased word before the entity ('' at the start). */
  slot: string;
}

function analyse(tokens: Token[], lowerVocab: Set<string>): Analysed {
  const mentions = extractMentions(tokens);
  const inMention = new Uint8Array(tokens.length);
  for (const m of mentions) for (let k = m.first; k <= m.last; k++) inMention[k] = 1;
  const content = new Set<string>();
  const allStems = new Set<string>();
  const hedges = new Set<string>();
  let negations = 0;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind !== 'word') continue;
    allStems.add(stem(t.lower));
    if (inMention[k]) continue;
    if (isNegationToken(t.lower)) {
      // "not only ... but" is not a negation; neither is "no longer" a flip of polarity we can read.
      if (t.lower === 'not' && tokens[k + 1]?.lower === 'only') continue;
      negations++;
      continue;
    }
    if (HEDGES.has(t.lower)) hedges.add(t.lower);
    if (isContentWord(t)) content.add(stem(t.lower));
  }
  return {
    tokens,
    mentions,
    inMention,
    content,
    allStems,
    negations,
    hedges,
    entities: entitiesOf(tokens, inMention, lowerVocab),
  };
}

const CONNECTORS = new Set(['of', 'de', 'la', 'von', 'van', 'der', 'du', 'del', 'da']);

/** Runs of capitalised words (a sentence's first word only when the text never writes it in lower case). */
function entitiesOf(tokens: Token[], inMention: Uint8Array, lowerVocab: Set<string>): Entity[] {
  const out: Entity[] = [];
  let k = 0;
  const firstWord = tokens.findIndex((t) => t.kind === 'word');
  while (k < tokens.length) {
    const t = tokens[k]!;
    const cap = t.kind === 'word' && t.capitalized && !inMention[k];
    const initialOk = k !== firstWord || (!STOPWORDS.has(t.lower) && !lowerVocab.has(t.lower));
    if (!cap || !initialOk || STOPWORDS.has(t.lower)) {
      k++;
      continue;
    }
    let last = k;
    let j = k + 1;
    while (j < tokens.length) {
      const u = tokens[j]!;
      if (u.kind === 'word' && u.capitalized && !inMention[j]) {
        last = j;
        j++;
      } else if (
        u.kind === 'word' &&
        CONNECTORS.has(u.lower) &&
        tokens[j + 1]?.kind === 'word' &&
        tokens[j + 1]!.capitalized
      ) {
        j++;
      } else break;
    }
    const words = tokens.slice(k, last + 1).filter((w) => w.kind === 'word' && !CONNECTORS.has(w.lower));
    out.push({
      stems: words.map((w) => stem(w.lower)),
      text: words.map((w) => w.text).join(' '),
      first: k,
      last,
      slot: slotOf(tokens, k, last),
    });
    k = last + 1;
  }
  return out;
}

/**
 * The entity's place in its sentence: the two words before it ("born in"), or, for a sentence's
 * subject, the two words after it ("is the"). Two names are in the same place only when these agree.
 */
function slotOf(tokens: Token[], first: number, last: number): string {
  const words = (from: number, step: number) => {
    const out: string[] = [];
    for (let j = from; j >= 0 && j < tokens.length && out.length < 2; j += step) {
      const t = tokens[j]!;
      if (t.kind === 'word') out.push(stem(t.lower));
      else if (t.kind === 'symbol' && t.text !== '"' && t.text !== "'") break;
    }
    return out;
  };
  const before = words(first - 1, -1);
  if (before.length > 0) return `before:${before.reverse().join(' ')}`;
  return `after:${words(last + 1, 1).join(' ')}`;
}

const norm = (tokens: Token[]) =>
  tokens
    .filter((t) => t.kind !== 'symbol' || !['.', '!', '?', ',', ';', ':', '"', '“', '”', "'"].includes(t.text))
    .map((t) => t.lower)
    .join(' ');

interface Comparison {
  sentence: Sentence;
  coverage: number;
  matched: number;
  support: 'exact' | 'near' | null;
  contradictions: Array<{ kind: SignalKind; detail: string; confidence: number; spans: Array<[number, number]> }>;
  /** Why the sentence does not support the claim although it matches much of it. */
  gaps: string[];
}

export function analyzeFact(claim: string, context: string): DeterministicFact {
  const cTokens = tokenize(claim);
  const xTokens = tokenize(context);
  const lowerVocab = new Set<string>();
  for (const t of xTokens) if (t.kind === 'word' && !t.capitalized) lowerVocab.add(t.lower);
  for (const t of cTokens) if (t.kind === 'word' && !t.capitalized) lowerVocab.add(t.lower);
  const c = analyse(cTokens, lowerVocab);
  const sentences = splitSentences(context, xTokens);
  const carried = carriedSubjects(sentences, lowerVocab);

  // Rank every sentence by the share of the claim's content words it contains (one pass).
  const scored: Array<{ s: Sentence; coverage: number; matched: number; extra: number }> = [];
  for (const s of sentences) {
    let matched = 0;
    const seen = new Set<string>();
    let words = 0;
    for (const t of s.tokens) {
      if (t.kind !== 'word') continue;
      words++;
      const st = stem(t.lower);
      if (c.content.has(st) && !seen.has(st)) {
        seen.add(st);
        matched++;
      }
    }
    for (const st of carried.get(s.index) ?? []) {
      if (c.content.has(st) && !seen.has(st)) {
        seen.add(st);
        matched++;
      }
    }
    const denom = Math.max(1, c.content.size);
    scored.push({ s, coverage: matched / denom, matched, extra: words - matched });
  }
  scored.sort((a, b) => b.coverage - a.coverage || a.extra - b.extra || a.s.index - b.s.index);
  const ranked = scored
    .slice(0, 12)
    .filter((x) => x.matched > 0 || c.content.size === 0)
    .map((x) => ({ start: x.s.start, end: x.s.end, coverage: round2(x.coverage) }));

  if (c.content.size === 0 && c.mentions.length === 0) {
    return inconclusive('The claim has no content words, numbers or dates to compare with the context.', [], ranked);
  }

  const claimNorm = norm(cTokens);
  const comparisons: Comparison[] = [];
  for (const x of scored.slice(0, CANDIDATES)) {
    if (x.matched === 0 && !(c.content.size === 0 && x.s.tokens.length > 0)) continue;
    comparisons.push(compare(c, claimNorm, x.s, lowerVocab, context, carried.get(x.s.index) ?? []));
  }

  const supports = comparisons.filter((k) => k.support !== null && k.contradictions.length === 0);
  const contradicting = comparisons.filter((k) => k.contradictions.length > 0);
  const sentenceText = (s: Sentence) => JSON.stringify(clip(context.slice(s.start, s.end)));

  if (supports.length > 0 && contradicting.length > 0) {
    const a = supports[0]!;
    const b = contradicting[0]!;
    return inconclusive(
      `The context both supports the claim (sentence ${sentenceText(a.sentence)}) and contradicts it (${b.contradictions[0]!.detail}); it is not consistent on this point.`,
      [
        { start: a.sentence.start, end: a.sentence.end, role: 'supporting_sentence' },
        { start: b.sentence.start, end: b.sentence.end, role: 'contradicting_sentence' },
      ],
      ranked,
      [...b.contradictions.map((k) => ({ kind: k.kind, detail: k.detail, sentence: b.sentence.index }))],
    );
  }
  if (contradicting.length > 0) {
    // The strongest contradiction: highest confidence, then best coverage.
    contradicting.sort((a, b) => maxConf(b) - maxConf(a) || b.coverage - a.coverage);
    const best = contradicting[0]!;
    const kinds = new Set(best.contradictions.map((k) => k.kind));
    const confidence = Math.min(0.95, maxConf(best) + (kinds.size > 1 ? 0.05 : 0));
    const evidence: RawEvidence[] = [
      { start: best.sentence.start, end: best.sentence.end, role: 'contradicting_sentence' },
    ];
    for (const k of best.contradictions)
      for (const [start, end] of k.spans) evidence.push({ start, end, role: 'contradicting_span' });
    return {
      verdict: 'REFUTED',
      confidence: round2(confidence),
      reasoning: `Contradicted by the context sentence ${sentenceText(best.sentence)}: ${best.contradictions.map((k) => k.detail).join('; ')}.`,
      signals: best.contradictions.map((k) => ({ kind: k.kind, detail: k.detail, sentence: best.sentence.index })),
      evidence: dedupe(evidence),
      ranked,
    };
  }
  if (supports.length > 0) {
    const exact = supports.find((k) => k.support === 'exact');
    const best = exact ?? supports[0]!;
    const kind: SignalKind = exact ? 'exact_sentence' : 'near_exact_sentence';
    const detail = exact
      ? 'the claim appears word for word in the sentence'
      : `every content word, number, date and name of the claim is in the sentence, with the same polarity (${best.matched} of ${c.content.size} content words)`;
    return {
      verdict: 'SUPPORTED',
      confidence: exact ? CONFIDENCE.exact : CONFIDENCE.nearExact,
      reasoning: `Supported by the context sentence ${sentenceText(best.sentence)}: ${detail}.`,
      signals: [{ kind, detail, sentence: best.sentence.index }],
      evidence: [{ start: best.sentence.start, end: best.sentence.end, role: 'supporting_sentence' }],
      ranked,
    };
  }
  const top = comparisons[0];
  if (!top) return inconclusive('No context sentence shares a content word with the claim.', [], ranked);
  const why = top.gaps.length > 0 ? top.gaps.join('; ') : 'it does not state every part of the claim';
  return inconclusive(
    `The best-matching context sentence ${sentenceText(top.sentence)} covers ${top.matched} of ${c.content.size} content words of the claim but neither supports nor contradicts it: ${why}.`,
    [{ start: top.sentence.start, end: top.sentence.end, role: 'best_match' }],
    ranked,
  );
}

/**
 * One context sentence against the claim, in named steps: the word overlap, then values (numbers
 * and dates), polarity (negations and antonyms), named entities, hedges, and last whether what
 * is left is support. Each step adds its contradictions and gaps in that order.
 */
function compare(
  c: Analysed,
  claimNorm: string,
  s: Sentence,
  lowerVocab: Set<string>,
  context: string,
  carriedStems: readonly string[],
): Comparison {
  const x = analyse(s.tokens, lowerVocab);
  for (const st of carriedStems) x.allStems.add(st);
  let matched = 0;
  for (const w of c.content) if (x.content.has(w) || x.allStems.has(w)) matched++;
  const coverage = c.content.size === 0 ? 1 : matched / c.content.size;
  const step: CompareStep = {
    c,
    x,
    s,
    contradictions: [],
    gaps: [],
    quote: (a, b) => JSON.stringify(context.slice(a, b)),
  };

  const valuesSupported = compareValues(step);
  const polarity = comparePolarity(step);
  const unmatchedEntities = compareEntities(step);
  const hedged = compareHedges(step);

  let support: Comparison['support'] = null;
  if (
    step.contradictions.length === 0 &&
    !polarity.negDiff &&
    polarity.flipped === 0 &&
    valuesSupported &&
    unmatchedEntities === 0 &&
    hedged === 0
  ) {
    support = supportOf(step, claimNorm, coverage);
  }
  return { sentence: s, coverage, matched, support, contradictions: step.contradictions, gaps: step.gaps };
}

/** What every step of compare() reads (the claim, the sentence) and adds to. */
interface CompareStep {
  c: Analysed;
  x: Analysed;
  s: Sentence;
  contradictions: Comparison['contradictions'];
  gaps: string[];
  /** The context between two offsets, quoted. */
  quote: (a: number, b: number) => string;
}

/** Alignment of the claim's content words (outside a set of excluded stems) with the sentence. */
function aligned({ c, x }: CompareStep, excluded: ReadonlySet<string>): { share: number; matched: number } {
  let n = 0;
  let m = 0;
  for (const w of c.content) {
    if (excluded.has(w)) continue;
    n++;
    if (x.allStems.has(w)) m++;
  }
  return { share: n === 0 ? 0 : m / n, matched: m };
}

/** Quantities and dates: true when every one of the claim's is supported by the sentence. */
function compareValues(step: CompareStep): boolean {
  const { c, x, contradictions, gaps, quote } = step;
  const base = aligned(step, new Set());
  let valuesSupported = true;
  for (const q of c.mentions) {
    const sameKind = x.mentions.filter(
      (m) => m.kind === q.kind && (m.kind === 'date' || (m as Quantity).dim === (q as Quantity).dim),
    );
    if (q.kind === 'quantity' && q.dim === 'number') {
      // Bare numbers compare only one-to-one.
      const bareClaim = c.mentions.filter((m) => m.kind === 'quantity' && m.dim === 'number').length;
      if (bareClaim !== 1 || sameKind.length !== 1) {
        valuesSupported = valuesSupported && sameKind.some((m) => compareQuantities(q, m as Quantity) === 'support');
        if (!sameKind.some((m) => compareQuantities(q, m as Quantity) === 'support'))
          gaps.push(
            `the sentence does not state the number ${quote(q.start, q.end).replace(/^"|"$/g, '')} of the claim`,
          );
        continue;
      }
    }
    const results = sameKind.map((m) =>
      q.kind === 'date' ? compareDates(q, m as DateMention) : compareQuantities(q as Quantity, m as Quantity),
    );
    if (results.includes('support')) continue;
    valuesSupported = false;
    const claimText = claimSlice(c, q);
    if (
      results.length > 0 &&
      results.every((r) => r === 'contradict') &&
      base.share >= ALIGN_FOR_VALUE &&
      base.matched >= 1
    ) {
      const other = sameKind[0]!;
      const kind: SignalKind = q.kind === 'date' ? 'date_mismatch' : 'quantity_mismatch';
      const what = q.kind === 'date' ? 'date' : dimLabel((q as Quantity).dim);
      contradictions.push({
        kind,
        detail: `the claim states ${claimText} but the context states ${quote(other.start, other.end)} (${what})`,
        confidence: q.kind === 'date' ? CONFIDENCE.date : CONFIDENCE.quantity,
        spans: [[other.start, other.end]],
      });
    } else if (results.length === 0) {
      gaps.push(
        `the sentence states no ${q.kind === 'date' ? 'date' : dimLabel((q as Quantity).dim)} to compare with ${claimText}`,
      );
    } else {
      gaps.push(`the sentence's value does not settle ${claimText}`);
    }
  }
  return valuesSupported;
}

/** Polarity: negations and antonyms. Returns whether the negation counts differ and how many words flipped. */
function comparePolarity(step: CompareStep): { negDiff: boolean; flipped: number } {
  const { c, x, s, contradictions, gaps } = step;
  const flipped: Array<{ claim: string; ctx: string; span: [number, number] }> = [];
  for (const w of c.content) {
    if (x.allStems.has(w)) continue;
    const opp = ANTONYMS.get(w);
    if (!opp) continue;
    for (let k = 0; k < s.tokens.length; k++) {
      const t = s.tokens[k]!;
      if (t.kind !== 'word' || x.inMention[k]) continue;
      const st = stem(t.lower);
      if ((opp.has(st) || opp.has(t.lower)) && !c.allStems.has(st)) {
        flipped.push({ claim: w, ctx: t.text, span: [t.start, t.end] });
        break;
      }
    }
  }
  const negDiff = c.negations % 2 !== x.negations % 2;
  const flipOdd = flipped.length % 2 === 1;
  const polarityFlip = negDiff !== flipOdd;
  if (polarityFlip) {
    const excluded = new Set(flipped.map((f) => f.claim));
    const al = aligned(step, excluded);
    // A negation in a much longer sentence may belong to another clause: only close matches count.
    const closeEnough = x.content.size <= 2 * c.content.size + 3;
    if (al.share >= ALIGN_FOR_POLARITY && al.matched >= 2 && (flipped.length > 0 || closeEnough)) {
      if (flipped.length > 0 && !negDiff) {
        const f = flipped[0]!;
        contradictions.push({
          kind: 'antonym_flip',
          detail: `the claim says "${f.claim}" where the context says ${JSON.stringify(f.ctx)}`,
          confidence: CONFIDENCE.polarity,
          spans: flipped.map((g) => g.span),
        });
      } else {
        const negTok =
          (c.negations % 2 === 1 ? null : s.tokens.find((t) => t.kind === 'word' && isNegationToken(t.lower))) ?? null;
        contradictions.push({
          kind: 'negation_flip',
          detail:
            c.negations % 2 === 1
              ? 'the claim is negated but the context sentence asserts it'
              : `the context sentence negates the claim (${negTok ? JSON.stringify(negTok.text) : 'negation'})`,
          confidence: CONFIDENCE.polarity,
          spans: negTok ? [[negTok.start, negTok.end]] : [],
        });
      }
    } else gaps.push('its polarity differs but it matches too little of the claim to contradict it');
  } else if (negDiff || flipped.length > 0) {
    gaps.push('it expresses the claim with different negations or opposite words, which is not read as support');
  }
  return { negDiff, flipped: flipped.length };
}

/** Named entities in the claim's place. Returns how many of the claim's entities the sentence does not name. */
function compareEntities(step: CompareStep): number {
  const { c, x, s, contradictions, gaps, quote } = step;
  const unmatchedClaim = c.entities.filter((e) => !e.stems.some((st) => x.allStems.has(st)));
  const foreign = x.entities.filter((e) => !e.stems.some((st) => c.allStems.has(st)));
  if (unmatchedClaim.length > 0) {
    let reported = false;
    for (const e of unmatchedClaim) {
      const rival = foreign.find((f) => f.slot === e.slot) ?? null;
      if (!rival) continue;
      const al = aligned(step, new Set(e.stems));
      if (al.share >= ALIGN_FOR_ENTITY && al.matched >= 2) {
        const t0 = s.tokens[rival.first]!;
        const t1 = s.tokens[rival.last]!;
        contradictions.push({
          kind: 'entity_mismatch',
          detail: `the claim names ${JSON.stringify(e.text)} where the context names ${quote(t0.start, t1.end)}`,
          confidence: CONFIDENCE.entity,
          spans: [[t0.start, t1.end]],
        });
        reported = true;
        break;
      }
    }
    if (!reported)
      gaps.push(`the sentence does not name ${unmatchedClaim.map((e) => JSON.stringify(e.text)).join(', ')}`);
  }
  return unmatchedClaim.length;
}

/** Hedges: "It is a myth that ...", "... allegedly ...". Returns how many the sentence adds. */
function compareHedges({ c, x, gaps }: CompareStep): number {
  const hedged = [...x.hedges].filter((h) => !c.hedges.has(h));
  if (hedged.length > 0)
    gaps.push(`the sentence reports or qualifies the statement (${hedged.map((h) => JSON.stringify(h)).join(', ')})`);
  return hedged.length;
}

/** Nothing contradicts or qualifies the claim: exact (word for word), near (every content word), or a gap. */
function supportOf({ c, x, s, gaps }: CompareStep, claimNorm: string, coverage: number): Comparison['support'] {
  const sentNorm = ` ${norm(s.tokens)} `;
  if (claimNorm.length > 0 && sentNorm.includes(` ${claimNorm} `)) return 'exact';
  if (coverage === 1 && c.content.size > 0) return 'near';
  if (c.content.size > 0) {
    const missing = [...c.content].filter((w) => !x.allStems.has(w));
    gaps.push(
      `the sentence lacks ${missing
        .slice(0, 5)
        .map((w) => JSON.stringify(w))
        .join(', ')}`,
    );
  }
  return null;
}

const PRONOUNS = new Set(['it', 'he', 'she', 'they', 'this', 'its', 'his', 'her', 'their']);

/**
 * A sentence that starts with a pronoun ("It was completed in 1889.") is about the previous
 * sentence's subject: its names and first content words count as words of the sentence when
 * matching (never as contradictions: they only help a sentence be found and support a claim).
 */
function carriedSubjects(sentences: Sentence[], lowerVocab: Set<string>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (let k = 1; k < sentences.length; k++) {
    const first = sentences[k]!.tokens.find((t) => t.kind === 'word');
    if (!first || !PRONOUNS.has(first.lower)) continue;
    // Walk back over pronoun sentences to the one that names the subject.
    let j = k - 1;
    while (j > 0 && PRONOUNS.has(sentences[j]!.tokens.find((t) => t.kind === 'word')?.lower ?? '')) j--;
    const prev = sentences[j]!;
    const inMention = new Uint8Array(prev.tokens.length);
    const stems = new Set<string>();
    const ents = entitiesOf(prev.tokens, inMention, lowerVocab);
    for (const e of ents.slice(0, 2)) for (const st of e.stems) stems.add(st);
    let taken = 0;
    for (const t of prev.tokens) {
      if (taken >= 3) break;
      if (isContentWord(t)) {
        stems.add(stem(t.lower));
        taken++;
      }
    }
    out.set(k, [...stems]);
  }
  return out;
}

function claimSlice(c: Analysed, m: Mention): string {
  const a = c.tokens[m.first]!;
  const b = c.tokens[m.last]!;
  return JSON.stringify(
    c.tokens
      .slice(m.first, m.last + 1)
      .map((t) => t.text)
      .join(' ')
      .slice(0, 80) || `${a.text}${b.text}`,
  );
}

const maxConf = (k: Comparison) => Math.max(...k.contradictions.map((x) => x.confidence));
const round2 = (n: number) => Math.round(n * 100) / 100;
const clip = (s: string, max = 300) => (s.length > max ? `${s.slice(0, max)}…` : s);

function dedupe(ev: RawEvidence[]): RawEvidence[] {
  const seen = new Set<string>();
  return ev.filter((e) => {
    const k = `${e.start}:${e.end}:${e.role}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function inconclusive(
  reasoning: string,
  evidence: RawEvidence[],
  ranked: DeterministicFact['ranked'],
  signals: FactSignal[] = [],
): DeterministicFact {
  return { verdict: 'INCONCLUSIVE', confidence: 0, reasoning, signals, evidence, ranked };
}
