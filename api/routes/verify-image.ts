// POST /verify/image (multipart `image` + `claim`, optional `provider`): the upload is read
// under its caps and recognised by its magic bytes here, stored in the store for the worker
// (the image never goes into Temporal history), measured by the image activity, and deleted
// when the request is done. See docs/fact-and-image.md.
import { imageFieldsSchema } from '../../contract/image.js';
import { resolveProvider } from '../../core/providers-config.js';
import { deleteUpload, purgeStaleUploads, saveUpload } from '../../core/uploads.js';
import { logger } from '../../core/logger.js';
import type { ImageActivityInput } from '../../core/verification-io.js';
import { runEngine } from '../engine-route.js';
import { HttpError } from '../errors.js';
import { principalOf } from '../middleware/auth.js';
import { readImageUpload } from '../middleware/image-upload.js';
import { apiKeyGuard, type AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';

const log = logger('image');

export const IMAGE_UPLOAD_CAPACITY_DETAIL = 'Upload capacity reached — retry shortly.';
/** Concurrent image uploads per API process. */
export const MAX_CONCURRENT_IMAGE_UPLOADS = 8;

let active = 0;

export function imageHandlers(deps: AppDeps) {
  const verifyImage = endpoint('verifyImage', [...apiKeyGuard(deps, 'verify:read')], async (ctx) => {
    if (active >= MAX_CONCURRENT_IMAGE_UPLOADS)
      throw new HttpError(503, IMAGE_UPLOAD_CAPACITY_DETAIL, { 'Retry-After': '1' });
    active++;
    let uploadId: string | null = null;
    try {
      const upload = await readImageUpload(ctx, deps.cfg.SVC_UPLOAD_READ_TIMEOUT * 1000);
      const fields = imageFieldsSchema.safeParse(upload.fields);
      if (!fields.success) throw new HttpError(400, fields.error.issues[0]?.message ?? 'Invalid form fields.');
      const provider = resolveProvider(fields.data.provider, deps.env);
      if (!provider.ok) throw new HttpError(400, provider.detail);
      const principal = principalOf(ctx);
      purgeStaleUploads(deps.store).catch((err) =>
        log.warn('stale upload purge failed', { error: String(err?.message ?? err) }),
      );
      uploadId = await saveUpload(deps.store, principal.orgId, upload.content, upload.sha256);
      const input: ImageActivityInput = {
        claim: fields.data.claim,
        upload_id: uploadId,
        sha256: upload.sha256,
        size_bytes: upload.content.length,
        format: upload.format,
        provider: provider.provider,
      };
      // The deadline (measuring, plus the provider's time-out when a model is asked) is the registry's.
      const { result, workflowId } = await runEngine(deps, ctx, 'image', { input });
      if ('refused' in result)
        throw new HttpError(result.refused === 'too_many_pixels' ? 413 : 400, result.detail, {
          'X-Workflow-Id': workflowId,
        });
      ctx.body = result;
    } finally {
      active--;
      if (uploadId !== null) {
        const id = uploadId;
        deleteUpload(deps.store, id).catch((err) =>
          log.warn('upload delete failed', { upload_id: id, error: String(err?.message ?? err) }),
        );
      }
    }
  });
  return { verifyImage };
}
