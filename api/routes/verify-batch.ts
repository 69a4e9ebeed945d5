// POST /verify/batch and GET /verify/batch/{job_id}: one workflow per job (api/batch-jobs.ts).
// POST answers 200 with the finished job when it completes within SVC_BATCH_WAIT_SECONDS,
// else 202 with the running snapshot to poll with GET.
import { BATCH_FOREIGN_DETAIL, BATCH_NOT_FOUND_DETAIL, planBatchDetail } from '../../contract/batch.js';
import { principalOf } from '../middleware/auth.js';
import { PLAN_LIMITS } from '../middleware/rate-limit.js';
import { HttpError } from '../errors.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { BatchJobs } from '../batch-jobs.js';
import { resolveProvider } from '../../core/providers-config.js';

export function batchHandlers(deps: AppDeps) {
  const batches = new BatchJobs(deps.cfg, deps.store, deps.temporal);

  const verifyBatch = endpoint('verifyBatch', [...apiKeyGuard(deps, 'verify:read')], async (ctx, req) => {
    const { items } = req.body(); // the row's batchRequestSchema
    const principal = principalOf(ctx);
    const limit = (PLAN_LIMITS[principal.plan] ?? PLAN_LIMITS.free).batchSize;
    if (items.length > limit) throw new HttpError(400, planBatchDetail(items.length, principal.plan, limit));
    // natural_language items: params.provider (or SVC_LLM_PROVIDER) resolved here, 400 when unknown or unconfigured.
    items.forEach((item, i) => {
      // logic items too: a natural-language logic query is translated by the provider first.
      if (item.type !== 'natural_language' && item.type !== 'logic') return;
      if (item.type === 'logic' && item.params.provider === undefined) {
        // DSL items never use it: the default is filled in when it resolves, never a 400.
        const fallback = resolveProvider(undefined, deps.env);
        if (fallback.ok) item.params = { ...item.params, provider: fallback.provider };
        return;
      }
      const requested = item.params.provider;
      if (requested !== undefined && typeof requested !== 'string')
        throw new HttpError(400, `Invalid field 'items.${i}.params.provider': provider must be a string`);
      const provider = resolveProvider(requested, deps.env);
      if (!provider.ok) throw new HttpError(400, `Invalid field 'items.${i}.params.provider': ${provider.detail}`);
      item.params = { ...item.params, provider: provider.provider };
    });
    const job = await batches.submit({ orgId: principal.orgId, principal, items });
    ctx.set('X-Workflow-Id', job.workflow_id);
    if (job.status !== 'running') {
      // Final (completed, or failed: its workflow ended without completing it).
      ctx.status = 200;
    } else {
      ctx.status = 202;
      ctx.set('Location', `/verify/batch/${job.job_id}`);
    }
    ctx.body = job;
  });

  const getBatch = endpoint('getBatch', [...apiKeyGuard(deps, 'verify:read')], async (ctx, req) => {
    const doc = await batches.store.find(req.params.job_id);
    if (!doc) throw new HttpError(404, BATCH_NOT_FOUND_DETAIL);
    if (doc.org_id !== principalOf(ctx).orgId) throw new HttpError(403, BATCH_FOREIGN_DETAIL);
    // Evicted (its slot taken by a newer job): 404 from that moment, while its documents are deleted.
    const job = await batches.visibleView(doc);
    if (!job) throw new HttpError(404, BATCH_NOT_FOUND_DETAIL);
    ctx.set('X-Workflow-Id', job.workflow_id);
    ctx.body = job;
  });
  return { verifyBatch, getBatch };
}
