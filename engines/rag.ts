// POST /verify/rag engine: retrieval provenance. A chunk is mismatched when its
// metadata.document_id differs (exact, case-sensitive string comparison) from
// target_document_id. drm_rate = mismatched / checked; verified when drm_rate ≤ max_drm_rate,
// compared exactly as fractions of BigInts (never as floating point): m/c ≤ p/q ⇔ m·q ≤ p·c.
//
// max_drm_rate is a string only (numeric JSON values are refused, so no float ever reaches
// the comparison): an integer ("0", "1"), a decimal ("0.1", ".25"), a fraction ("1/10") or
// scientific notation ("1e-1", "2.5E-2"); no sign, no surrounding whitespace; the value must
// lie in [0, 1]. Default "0": any mismatch fails.
// The request schema and rate parsing are part of the contract (contract/rag.ts).
export {
  parseRate,
  ragRequestSchema,
  validateRagRequest,
  RAG_LIMITS,
  type Rational,
  type RagRequest,
  type RagRequestInput,
} from '../contract/rag.js';
import type { RagRequest } from '../contract/rag.js';

export const RAG_RISK_MISMATCH = 'DOCUMENT_RETRIEVAL_MISMATCH';

export type RagResult = {
  verified: boolean;
  /** DOCUMENT_RETRIEVAL_MISMATCH when drm_rate exceeds max_drm_rate, else null. */
  risk: typeof RAG_RISK_MISMATCH | null;
  drm_rate: number;
  chunks_checked: number;
  mismatched_count: number;
};

/** Checks provenance. Call with a validated request (ragRequestSchema). */
export function verifyRag(req: RagRequest): RagResult {
  const checked = req.chunks.length;
  const mismatched = req.chunks.filter((c) => c.metadata.document_id !== req.target_document_id).length;
  const { numerator, denominator } = req.max_drm_rate.rate;
  const verified = BigInt(mismatched) * denominator <= numerator * BigInt(checked);
  return {
    verified,
    risk: verified ? null : RAG_RISK_MISMATCH,
    drm_rate: mismatched / checked,
    chunks_checked: checked,
    mismatched_count: mismatched,
  };
}
