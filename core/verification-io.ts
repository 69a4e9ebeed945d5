// What the API sends to the worker and gets back, per engine: the types that cross the
// Temporal boundary. Types only (no runtime code), so the API can share them without loading
// any activity or engine.
import type { FactResponse } from '../contract/fact.js';
import type { ImageResponse } from '../contract/image.js';
import type { ConsensusResponse, VerificationMode } from '../contract/consensus.js';
import type { DiagnosticResult } from './diagnostic.js';
import type { MathRequest, MathResponse } from '../contract/math.js';
import type { LogicRequest } from '../contract/logic.js';
import type { CodeRequest } from '../contract/code.js';
import type { EngineName } from './engines.js';
import type { ImageFormat } from './image-format.js';

/**
 * /verify/math's body (contract/math.ts mathResponseSchema): the engine's fields without the
 * internal `proof`, and what the activity adds (status VERIFIED only for a retained, attested
 * proof; proof_ref; attestation; constraint_id/attestation_error when signing failed).
 */
export type MathActivityResult = Omit<MathResponse, 'proof' | 'status'> & {
  status: 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';
  proof_ref: string | null;
  is_authoritative: boolean;
  attestation?: { id: string; token: string; status: string };
  constraint_id?: string;
  attestation_error?: string;
};

export interface FactActivityInput {
  claim: string;
  context: string;
  /** The resolved provider name ('local' = no model: deterministic only). */
  provider: string;
}

export type FactActivityResult =
  (FactResponse & { timed_out?: false }) | { timed_out: true; detail: string; provider_used: string };

export interface ImageActivityInput {
  claim: string;
  upload_id: string;
  /** Hex SHA-256 of the image bytes. */
  sha256: string;
  size_bytes: number;
  format: ImageFormat;
  /** The resolved provider name ('local' = no vision model). */
  provider: string;
}

/** An image the activity could not decode, or one over the pixel limit: the route answers 400 or 413. */
export type ImageRefusal = { refused: 'undecodable' | 'too_many_pixels'; detail: string };
export type ImageActivityResult = ImageResponse | ImageRefusal;

export interface StatsActivityInput {
  query: string;
  upload_id: string;
  columns: string[];
  rows: number;
  size_bytes: number;
  dataset_sha256: string;
}

export interface LogicActivityResult {
  status: 'SAT' | 'UNSAT' | 'BLOCKED' | 'ERROR';
  model?: Record<string, string>;
  /** SAT: what the engine's own evaluator re-checked under the model (docs/logic-dsl.md §5). */
  independent_check?: {
    coverage: 'full' | 'quantifier_free_parts';
    constraints_total: number;
    constraints_unchecked_quantified: number;
  };
  /** UNSAT: the conflicting conjuncts (Z3's minimized unsat core), null if not extracted. */
  unsat_core?: Array<{ index: number; position: number; constraint: string }> | null;
  provider_used: string | null;
  /** Logic from natural language (providerVerifyWorkflow): the DSL the provider translated the query to. */
  translated_query?: string;
  error?: string;
  reason?: string;
  message?: string;
  position?: number | null;
  /** The query was refused here (policy or invalid input; the route pre-validates, so rarely used): the route maps it to 403 or 400. */
  input_refused?: 'policy' | 'invalid';
}

export interface DiagnosticActivityResult extends DiagnosticResult {
  attestation?: { id: string; token: string; status: string } | null;
}

/** POST /verify/consensus: the response plus the sandbox failure the route maps to 503 (and strips). */
export interface ConsensusRequestInput {
  query: string;
  verification_mode: VerificationMode;
  min_confidence: number;
}
export type ConsensusActivityResultView = ConsensusResponse & { sandbox_failure?: 'unavailable' | 'capacity' };

/** What a route sends to an engine's workflow and what comes back, per engine (core/engines.ts). */
export interface EngineIO {
  math: { input: MathRequest; result: MathActivityResult };
  logic: { input: LogicRequest | { query: string; provider: string }; result: LogicActivityResult };
  code: { input: CodeRequest; result: DiagnosticActivityResult };
  /** The caller's known fields as sent: the activity validates them itself (contract/sql.ts). */
  sql: { input: { query: unknown; schema_ddl: unknown; dialect: unknown }; result: DiagnosticActivityResult };
  /** Validated by the contract's own validators in the route (contract/process.ts, rag.ts). */
  process: { input: Record<string, unknown>; result: Record<string, unknown> };
  rag: { input: Record<string, unknown>; result: Record<string, unknown> };
  consensus: { input: ConsensusRequestInput; result: ConsensusActivityResultView };
  stats: { input: StatsActivityInput; result: DiagnosticResult };
  fact: { input: FactActivityInput; result: FactActivityResult };
  image: { input: ImageActivityInput; result: ImageActivityResult };
  natural_language: { input: { query: string; provider: string }; result: Record<string, unknown> };
}
export type EngineInput<E extends EngineName> = EngineIO[E]['input'];
export type EngineResult<E extends EngineName> = EngineIO[E]['result'];
// Every engine of the registry has its types here, and nothing else does.
type _EveryEngineTyped = [EngineName] extends [keyof EngineIO]
  ? [keyof EngineIO] extends [EngineName]
    ? true
    : never
  : never;
export const ENGINE_IO_COMPLETE: _EveryEngineTyped = true;
