// Fact verification: a claim against a context text (docs/fact-and-image.md).
export {
  analyzeFact,
  CONFIDENCE,
  type DeterministicFact,
  type FactVerdict,
  type FactSignal,
  type RawEvidence,
} from './analyze.js';
export {
  combineFact,
  findQuote,
  providerExcerpt,
  PROVIDER_EXCERPT_CHARS,
  PROVIDER_ONLY_CONFIDENCE,
  MIN_QUOTE_CHARS,
  type EntailmentInput,
  type FactOutcome,
} from './combine.js';
export { tokenize, splitSentences, codePointOffset } from './tokens.js';
export { extractMentions, compareQuantities, compareDates } from './quantities.js';
