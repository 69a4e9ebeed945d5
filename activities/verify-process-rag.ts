// /verify/process and /verify/rag as activities: deterministic checks whose responses are the
// contract's own shapes (verified flags and rates, no proof_ref). The route validated the
// request; the activity validates again because the RAG rate is parsed into exact fractions.
import { validateProcessRequest, verifyProcess } from './engines/process.js';
import { validateRagRequest, verifyRag } from './engines/rag.js';
import type { VerifyActivityInput } from './types.js';

export async function verifyProcessActivity(req: VerifyActivityInput<Record<string, unknown>>) {
  const parsed = validateProcessRequest(req.input);
  if (!parsed.ok) return { error: 'validation_error', detail: parsed.detail };
  return verifyProcess(parsed.value);
}

export async function verifyRagActivity(req: VerifyActivityInput<Record<string, unknown>>) {
  const parsed = validateRagRequest(req.input);
  if (!parsed.ok) return { error: 'validation_error', detail: parsed.detail };
  return verifyRag(parsed.value);
}
