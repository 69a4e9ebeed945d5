// /verify/* endpoints. Verdicts (VERIFIED, UNVERIFIABLE, BLOCKED, SAT/UNSAT, SUPPORTED/REFUTED,
// ...) are data and are returned; only a non-2xx answer throws (SvcApiError), except the
// BLOCKED verdicts the contract sends with HTTP 403 (logic, stats), which are returned too.
import type { z } from 'zod';
import type { Transport } from './http.js';
import { toBlob, type FilePart, type JsonObject } from './types.js';
import type { mathRequestSchema, MathResponse } from '../contract/math.js';
import type { sqlRequestSchema } from '../contract/sql.js';
import type { factRequestSchema, FactResponse } from '../contract/fact.js';
import type { imageFieldsSchema, ImageResponse } from '../contract/image.js';
import type { naturalLanguageRequestSchema, NaturalLanguageResponse } from '../contract/natural-language.js';

export type MathRequestBody = z.input<typeof mathRequestSchema>;
export type SqlRequestBody = z.input<typeof sqlRequestSchema>;
export type FactRequestBody = z.input<typeof factRequestSchema>;
export type NaturalLanguageRequestBody = z.input<typeof naturalLanguageRequestSchema>;
export type ImageFields = z.input<typeof imageFieldsSchema>;

/** The verdict fields every /verify/math answer carries over the engine's own fields. */
export type MathVerdict = Omit<MathResponse, 'status' | 'proof'> & {
  status: 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';
  proof_ref: string | null;
  is_authoritative: boolean;
  attestation_token?: string;
};

export interface DiagnosticResult {
  status: 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';
  agent_message: string;
  developer_fields: Record<string, unknown>;
  proof_ref: string | null;
  is_authoritative: boolean;
  admission?: 'ADMIT' | 'BLOCKED';
}

export interface CodeRequestBody {
  code: string;
  language?: string;
}
export interface LogicRequestBody {
  query: string;
  provider?: string;
}
export interface LogicResult {
  status: 'SAT' | 'UNSAT' | 'BLOCKED' | 'ERROR';
  model?: Record<string, string>;
  provider_used?: string | null;
  error?: string;
  detail?: string;
  [k: string]: unknown;
}
export interface ConsensusRequestBody {
  query: string;
  verification_mode?: 'single' | 'high' | 'maximum';
  min_confidence?: number;
}
export interface ProcessRequestBody {
  trace: string;
  mode?: 'irac' | 'milestones';
  milestones?: string[];
}
export interface RagRequestBody {
  target_document_id: string;
  chunks: { id: string; metadata: { document_id: string; [k: string]: unknown }; [k: string]: unknown }[];
  max_drm_rate?: string;
}
export type BatchItemType = 'natural_language' | 'logic' | 'math' | 'code' | 'fact' | 'sql';
export interface BatchItemInput {
  query: string;
  type?: BatchItemType;
  params?: JsonObject;
}
export interface BatchItemView {
  id: string;
  query: string;
  type: string;
  status: 'completed' | 'failed' | string;
  result?: JsonObject | null;
  error?: string | null;
  latency_ms?: number;
  [k: string]: unknown;
}
export interface BatchJob {
  job_id: string;
  status: string;
  progress_percent?: number;
  total_items?: number;
  completed_items?: number;
  failed_items?: number;
  items: BatchItemView[];
  [k: string]: unknown;
}

const post = <T>(t: Transport, path: string, json: unknown, verdictOn403 = false) =>
  t.send<T>({ method: 'POST', path, auth: 'key', json, verdictOn403 });

export const verifyMath = (t: Transport, body: MathRequestBody) => post<MathVerdict>(t, '/verify/math', body);
export const verifyLogic = (t: Transport, body: LogicRequestBody) => post<LogicResult>(t, '/verify/logic', body, true);
export const verifyCode = (t: Transport, body: CodeRequestBody) => post<DiagnosticResult>(t, '/verify/code', body);
export const verifySql = (t: Transport, body: SqlRequestBody) => post<DiagnosticResult>(t, '/verify/sql', body);
export const verifyFact = (t: Transport, body: FactRequestBody) => post<FactResponse>(t, '/verify/fact', body);
export const verifyConsensus = (t: Transport, body: ConsensusRequestBody) => post<JsonObject>(t, '/verify/consensus', body);
export const verifyNaturalLanguage = (t: Transport, body: NaturalLanguageRequestBody) =>
  post<NaturalLanguageResponse>(t, '/verify/natural_language', body);
export const verifyProcess = (t: Transport, body: ProcessRequestBody) => post<JsonObject>(t, '/verify/process', body);
export const verifyRag = (t: Transport, body: RagRequestBody) => post<JsonObject>(t, '/verify/rag', body);

/** POST /verify/image (multipart): the image file and the claim about it. */
export function verifyImage(t: Transport, image: FilePart, fields: ImageFields) {
  const form = new FormData();
  form.set('claim', fields.claim);
  if (fields.provider !== undefined) form.set('provider', fields.provider);
  form.set('image', toBlob(image, 'application/octet-stream'), image.filename ?? 'image');
  return t.send<ImageResponse>({ method: 'POST', path: '/verify/image', auth: 'key', form });
}

/** POST /verify/stats (multipart): a CSV file and the statistical claim. Never VERIFIED by contract. */
export function verifyStats(t: Transport, csv: FilePart, query: string) {
  const form = new FormData();
  form.set('query', query);
  form.set('file', toBlob(csv, 'text/csv'), csv.filename ?? 'data.csv');
  return t.send<DiagnosticResult>({ method: 'POST', path: '/verify/stats', auth: 'key', form, verdictOn403: true });
}

export const submitBatch = (t: Transport, items: BatchItemInput[]) => post<BatchJob>(t, '/verify/batch', { items });
export const getBatch = (t: Transport, jobId: string) =>
  t.send<BatchJob>({ method: 'GET', path: `/verify/batch/${encodeURIComponent(jobId)}`, auth: 'key' });

/** Polls a batch job until it is no longer running, reporting each view; bounded by `timeoutMs`. */
export async function waitForBatch(
  t: Transport,
  job: BatchJob,
  opts: { intervalMs?: number; timeoutMs?: number; onProgress?: (job: BatchJob) => void } = {},
): Promise<BatchJob> {
  const interval = opts.intervalMs ?? 500;
  const deadline = Date.now() + (opts.timeoutMs ?? 15 * 60_000);
  let current = job;
  opts.onProgress?.(current);
  while (!isFinished(current)) {
    if (Date.now() > deadline) throw new Error(`batch job ${job.job_id} still ${current.status} after ${opts.timeoutMs ?? 900_000} ms`);
    await new Promise((r) => setTimeout(r, interval));
    current = await getBatch(t, job.job_id);
    opts.onProgress?.(current);
  }
  return current;
}

export function isFinished(job: BatchJob): boolean {
  return job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled';
}
