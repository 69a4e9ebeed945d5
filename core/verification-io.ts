// What the API sends to the worker and gets back, per engine: the types that cross the
// Temporal boundary. Types only (no runtime code), so the API can share them without loading
// any activity or engine.
import type { FactResponse } from '../contract/fact.js';
import type { ImageResponse } from '../contract/image.js';
import type { ConsensusResponse, VerificationMode } from '../contract/consensus.js';
import type { DiagnosticResult } from './diagnostic.js';
import type { ImageFormat } from './image-format.js';

export interface FactActivityInput {
  claim: string;
  context: string;
  /** The resolved provider name ('local' = no model: deterministic only). */
  provider: string;
}

export type FactActivityResult = (FactResponse & { timed_out?: false }) | { timed_out: true; detail: string; provider_used: string };

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

export type ImageActivityResult = ImageResponse | { http_status: 400 | 413; detail: string };

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
  independent_check?: { coverage: 'full' | 'quantifier_free_parts'; constraints_total: number; constraints_unchecked_quantified: number };
  /** UNSAT: the conflicting conjuncts (Z3's minimized unsat core), null if not extracted. */
  unsat_core?: Array<{ index: number; position: number; constraint: string }> | null;
  provider_used: string | null;
  error?: string;
  reason?: string;
  message?: string;
  position?: number | null;
  /** HTTP status for input problems found only here (the route pre-validates, so rarely used). */
  http_status?: number;
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
