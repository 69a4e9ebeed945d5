// The batch activities built outside a worker, for the black-box files that run a unit or a job
// again by hand (a re-run after a crash). Apart from batch-fixtures.ts so that the many files
// importing those queries do not load the activities.
import type { Store } from '../../core/store.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import { makeAppendAuditActivity } from '../../activities/audit.js';
import { makeBatchActivities, type BatchEngineActivities } from '../../activities/verify-batch.js';
import type { EnginePool } from '../../activities/isolation/engine-pool.js';
import { stackEnv } from './helpers.js';

/** The batch activities as a worker builds them, on `store` with the stack's signing key and audit secret (to run a unit or job again outside its workflow). */
export async function batchActivitiesOn(store: Store, enginePool: EnginePool) {
  const env = stackEnv();
  const key = await loadSigningKey(env.SVC_ATTESTATION_SIGNING_KEY_PEM as string);
  const signer = new AttestationSigner(key, (env.SVC_DEPLOYMENT_ID as string | undefined) ?? 'svc-local');
  const engines = {
    appendAuditActivity: makeAppendAuditActivity({ store, auditSecret: env.SVC_AUDIT_SECRET_KEY as string }),
  } as unknown as BatchEngineActivities;
  return makeBatchActivities({ store, signer, enginePool, mathTimeoutMs: 30_000 }, engines);
}
