// /verify/* endpoints. Verdicts (VERIFIED, UNVERIFIABLE, BLOCKED, SAT/UNSAT, SUPPORTED/REFUTED,
// ...) are data and are returned; only a non-2xx answer throws (SvcApiError), except the
// BLOCKED verdicts the contract sends with HTTP 403 (logic, stats), which are returned too.
import type { z } from 'zod';
import type { Transport } from './http.js';
import { toBlob, type FilePart } from './types.js';
import type { mathRequestSchema, mathResponseSchema } from '../contract/math.js';
import type { sqlRequestSchema, sqlResponseSchema } from '../contract/sql.js';
import type { factRequestSchema, factResponseSchema } from '../contract/fact.js';
import type { imageFieldsSchema, imageResponseSchema } from '../contract/image.js';
import type { naturalLanguageRequestSchema, naturalLanguageResponseSchema } from '../contract/natural-language.js';
import type { logicRequestSchema, logicResponseSchema } from '../contract/logic.js';
import type { codeRequestSchema, codeResponseSchema } from '../contract/code.js';
import type { consensusRequestSchema, consensusResponseSchema } from '../contract/consensus.js';
import type { processRequestSchema, processResponseSchema } from '../contract/process.js';
import type { ragRequestSchema, ragResponseSchema } from '../contract/rag.js';
import type { statsMultipartSchema, statsResponseSchema } from '../contract/stats.js';
import type { batchRequestSchema, batchJobSchema, batchItemViewSchema } from '../contract/batch.js';
import type { diagnosticResultSchema } from '../contract/common.js';
import { pathOf } from '../contract/routes.js';

// What a caller sends is the schema's input (defaults optional); what it gets is its output.
export type MathRequestBody = z.input<typeof mathRequestSchema>;
export type MathResult = z.infer<typeof mathResponseSchema>;
export type LogicRequestBody = z.input<typeof logicRequestSchema>;
export type LogicResult = z.infer<typeof logicResponseSchema>;
export type CodeRequestBody = z.input<typeof codeRequestSchema>;
export type CodeResult = z.infer<typeof codeResponseSchema>;
export type SqlRequestBody = z.input<typeof sqlRequestSchema>;
export type SqlResult = z.infer<typeof sqlResponseSchema>;
export type FactRequestBody = z.input<typeof factRequestSchema>;
export type FactResult = z.infer<typeof factResponseSchema>;
export type ConsensusRequestBody = z.input<typeof consensusRequestSchema>;
export type ConsensusResult = z.infer<typeof consensusResponseSchema>;
export type NaturalLanguageRequestBody = z.input<typeof naturalLanguageRequestSchema>;
export type NaturalLanguageResult = z.infer<typeof naturalLanguageResponseSchema>;
export type ImageFields = z.input<typeof imageFieldsSchema>;
export type ImageResult = z.infer<typeof imageResponseSchema>;
export type StatsFields = Omit<z.input<typeof statsMultipartSchema>, 'file'>;
export type StatsResult = z.infer<typeof statsResponseSchema>;
export type ProcessRequestBody = z.input<typeof processRequestSchema>;
export type ProcessResult = z.infer<typeof processResponseSchema>;
export type RagRequestBody = z.input<typeof ragRequestSchema>;
export type RagResult = z.infer<typeof ragResponseSchema>;
export type BatchRequestBody = z.input<typeof batchRequestSchema>;
export type BatchItemInput = BatchRequestBody['items'][number];
export type BatchItemType = NonNullable<BatchItemInput['type']>;
export type BatchJob = z.infer<typeof batchJobSchema>;
export type BatchItemView = z.infer<typeof batchItemViewSchema>;
export type DiagnosticResult = z.infer<typeof diagnosticResultSchema>;

const post = <T>(t: Transport, path: string, json: unknown, verdictOn403 = false) =>
  t.send<T>({ method: 'POST', path, auth: 'key', json, verdictOn403 });

export const verifyMath = (t: Transport, body: MathRequestBody) => post<MathResult>(t, pathOf('verifyMath'), body);
export const verifyLogic = (t: Transport, body: LogicRequestBody) =>
  post<LogicResult>(t, pathOf('verifyLogic'), body, true);
export const verifyCode = (t: Transport, body: CodeRequestBody) => post<CodeResult>(t, pathOf('verifyCode'), body);
export const verifySql = (t: Transport, body: SqlRequestBody) => post<SqlResult>(t, pathOf('verifySql'), body);
export const verifyFact = (t: Transport, body: FactRequestBody) => post<FactResult>(t, pathOf('verifyFact'), body);
export const verifyConsensus = (t: Transport, body: ConsensusRequestBody) =>
  post<ConsensusResult>(t, pathOf('verifyConsensus'), body);
export const verifyNaturalLanguage = (t: Transport, body: NaturalLanguageRequestBody) =>
  post<NaturalLanguageResult>(t, pathOf('verifyNaturalLanguage'), body);
export const verifyProcess = (t: Transport, body: ProcessRequestBody) =>
  post<ProcessResult>(t, pathOf('verifyProcess'), body);
export const verifyRag = (t: Transport, body: RagRequestBody) => post<RagResult>(t, pathOf('verifyRag'), body);

/** POST /verify/image (multipart): the image file and the claim about it. */
export function verifyImage(t: Transport, image: FilePart, fields: ImageFields) {
  const form = new FormData();
  form.set('claim', fields.claim);
  if (fields.provider !== undefined) form.set('provider', fields.provider);
  form.set('image', toBlob(image, 'application/octet-stream'), image.filename ?? 'image');
  return t.send<ImageResult>({ method: 'POST', path: pathOf('verifyImage'), auth: 'key', form });
}

/** POST /verify/stats (multipart): a CSV file and the statistical claim. Never VERIFIED by contract. */
export function verifyStats(t: Transport, csv: FilePart, query: string) {
  const form = new FormData();
  form.set('query', query);
  form.set('file', toBlob(csv, 'text/csv'), csv.filename ?? 'data.csv');
  return t.send<StatsResult>({ method: 'POST', path: pathOf('verifyStats'), auth: 'key', form, verdictOn403: true });
}

export const submitBatch = (t: Transport, items: BatchItemInput[]) =>
  post<BatchJob>(t, pathOf('verifyBatch'), { items });
export const getBatch = (t: Transport, jobId: string) =>
  t.send<BatchJob>({ method: 'GET', path: pathOf('getBatch', { job_id: jobId }), auth: 'key' });

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
    if (Date.now() > deadline)
      throw new Error(`batch job ${job.job_id} still ${current.status} after ${opts.timeoutMs ?? 900_000} ms`);
    await new Promise((r) => setTimeout(r, interval));
    current = await getBatch(t, job.job_id);
    opts.onProgress?.(current);
  }
  return current;
}

/** `completed` and `failed` are final; an unknown status keeps polling until the wait bound (never a pass). */
export function isFinished(job: BatchJob): boolean {
  return job.status === 'completed' || job.status === 'failed';
}
