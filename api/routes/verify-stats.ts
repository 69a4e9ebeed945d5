// POST /verify/stats (multipart: `file` CSV + `query`): the upload is read and checked here
// under its caps, stored in the store for the worker, and evaluated by the stats activity in
// the Docker sandbox. See docs/stats.md.
import { deleteUpload, purgeStaleUploads, saveUpload } from '../../core/uploads.js';
import type { StatsActivityInput } from '../../core/verification-io.js';
import { runEngine } from '../engine-route.js';
import { SANDBOX_UNAVAILABLE_MESSAGE } from '../../contract/common.js';
import { HttpError } from '../errors.js';
import { principalOf } from '../middleware/auth.js';
import {
  readCsvUpload,
  STATS_BODY_LIMIT_BYTES,
  STATS_CELL_LIMIT,
  STATS_FILE_LIMIT_BYTES,
} from '../middleware/csv-upload.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { logger } from '../../core/logger.js';
import { positiveIntEnv } from '../../core/config.js';
import { FairSlots, defaultPerOrgCap } from '../../core/fair-slots.js';

const log = logger('stats');

export const UPLOAD_CAPACITY_DETAIL = 'Upload capacity reached — retry shortly.';
/** Concurrent uploads per API process (contract, Limits). */
export const MAX_CONCURRENT_UPLOADS = 8;

/**
 * The per-process upload slots, shared fairly: one organization holds at most
 * SVC_UPLOAD_ORG_CONCURRENCY of them (default half), so another organization still finds one
 * free while the first fills its share (docs/isolation.md).
 */
function uploadOrgCap(env: NodeJS.ProcessEnv): number {
  const n = positiveIntEnv('SVC_UPLOAD_ORG_CONCURRENCY', env);
  return n === undefined ? defaultPerOrgCap(MAX_CONCURRENT_UPLOADS) : Math.min(n, MAX_CONCURRENT_UPLOADS);
}

export function statsHandlers(deps: AppDeps) {
  const uploads = new FairSlots({ capacity: MAX_CONCURRENT_UPLOADS, perOrgCap: uploadOrgCap(deps.env) });
  const verifyStats = endpoint('verifyStats', [...apiKeyGuard(deps, 'verify:read')], async (ctx) => {
    // The slot is taken before a byte of the body is read, and held until the answer is sent.
    const slot = uploads.tryAcquire(principalOf(ctx).orgId);
    if (!slot.ok) throw new HttpError(503, UPLOAD_CAPACITY_DETAIL, { 'Retry-After': '1' });
    let uploadId: string | null = null;
    try {
      const upload = await readCsvUpload(ctx, {
        fileLimitBytes: STATS_FILE_LIMIT_BYTES,
        bodyLimitBytes: STATS_BODY_LIMIT_BYTES,
        cellLimit: STATS_CELL_LIMIT,
        timeoutMs: deps.cfg.SVC_UPLOAD_READ_TIMEOUT * 1000,
      });
      const principal = principalOf(ctx);
      purgeStaleUploads(deps.store).catch((err) =>
        log.warn('stale upload purge failed', { error: String(err?.message ?? err) }),
      );
      uploadId = await saveUpload(deps.store, principal.orgId, upload.content, upload.sha256);
      const input: StatsActivityInput = {
        query: upload.query,
        upload_id: uploadId,
        columns: upload.columns,
        rows: upload.rows,
        size_bytes: upload.content.length,
        dataset_sha256: upload.sha256,
      };
      // The deadline (slot wait plus the sandbox run) is the registry's.
      const { result, workflowId } = await runEngine(deps, ctx, 'stats', { input });
      const fields = result.developer_fields ?? {};
      if (fields.sandbox_error === 'unavailable')
        throw new HttpError(503, SANDBOX_UNAVAILABLE_MESSAGE, { 'X-Workflow-Id': workflowId });
      ctx.status = typeof fields.security_policy === 'string' ? 403 : 200;
      ctx.body = result;
    } finally {
      slot.release();
      if (uploadId !== null) {
        const id = uploadId;
        deleteUpload(deps.store, id).catch((err) =>
          log.warn('upload delete failed', { upload_id: id, error: String(err?.message ?? err) }),
        );
      }
    }
  });
  return { verifyStats };
}
