// The contract's fixed time-out details (the 503 `detail` of each engine when its deadline is
// missed) and fixed engine budgets. Plain constants, no zod: the engine registry
// (core/engines.ts) reads them, and it is also loaded inside the workflow bundle.
export const MATH_TIMEOUT_DETAIL = 'Math verification timed out.';
export const LOGIC_TIMEOUT_DETAIL = 'Logic verification timed out.';
export const CODE_TIMEOUT_DETAIL = 'Code verification timed out.';
export const SQL_TIMEOUT_DETAIL = 'SQL verification timed out.';
export const PROCESS_TIMEOUT_DETAIL = 'Process verification timed out.';
export const RAG_TIMEOUT_DETAIL = 'RAG verification timed out.';
export const CONSENSUS_TIMEOUT_DETAIL = 'Consensus verification timed out.';
export const STATS_TIMEOUT_DETAIL = 'Statistics verification timed out.';
export const FACT_TIMEOUT_DETAIL = 'Fact verification timed out.';
export const IMAGE_TIMEOUT_DETAIL = 'Image verification timed out.';
export const NL_TIMEOUT_DETAIL = 'Natural-language verification timed out.';

/** Consensus: every engine of one request runs under this one deadline. */
export const CONSENSUS_DEADLINE_MS = 30_000;
