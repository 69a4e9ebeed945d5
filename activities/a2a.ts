// Activities of the agent-to-agent gateway: evaluate one message (open the sealed payload, route
// it by payload_type to the decimal checker, the code engine or the Z3 entailment check through the engine pool,
// retain the proof of a verified verdict, sign the verdict as an ES256 JWT) and record it.
import { createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { SignJWT } from 'jose';
import type { Store } from '../core/store.js';
import { unseal, SealError } from '../core/sealed.js';
import { sha256Ref, sha256Hex } from '../core/canonical-json.js';
import { loadSigningKey, type SigningKey } from '../core/attestation.js';
import { SERVICE_VERSION } from '../core/version.js';
import type { A2aEvaluation, A2aMessageRecord, A2aStatusValue, A2aWorkflowInput } from '../core/a2a-workflow.js';
import { checkFinancialTransaction } from '../engines/a2a/financial.js';
import { EnginePool, EngineBusyError, EngineTimeoutError } from '../engines/a2a/pool.js';
import { mapCodeResult, type MappedVerdict } from '../engines/a2a/verdict.js';
import { checkEntailment } from '../engines/a2a/entailment.js';
import { solveLogic, type LogicPool } from '../engines/logic/index.js';
import type { EnginePool as EngineThreadPool } from './isolation/engine-pool.js';
import { retainProof, type ProofContext } from './proofs.js';
import { makeVerifyCodeActivity } from './verify-code.js';
import { logger } from '../core/logger.js';
import { recordA2aMessage } from '../persistence/agents.js';

const log = logger('a2a');

export const A2A_VERDICT_TYP = 'svc-a2a-verdict+jwt';
/** Code payloads above this many UTF-8 bytes are blocked before any engine runs. */
export const MAX_A2A_CODE_BYTES = 256 * 1024;
/** The gateway's engine pool (per worker process): 4 running, 32 waiting. */
export const a2aEnginePool = new EnginePool(4, 32);

export interface A2aActivityDeps {
  store: Store;
  proofContext: ProofContext;
  lookupSecret?: string;
  /** SVC_A2A_SIGNING_KEY_PEM: without it no verdict is `verified` (fail closed). */
  signingKeyPem?: string;
  deploymentId: string;
  /** The worker's thread pools (its composition root creates them): code scans and Z3 solves run there. */
  pools: { engine: EngineThreadPool; logic: LogicPool };
}

function payloadHash(payload: unknown): string {
  try {
    return sha256Ref(payload);
  } catch {
    return `sha256:${sha256Hex(JSON.stringify(payload))}`;
  }
}

export function makeA2aActivities(deps: A2aActivityDeps) {
  let keyPromise: Promise<SigningKey | null> | null = null;
  const signingKey = () => {
    keyPromise ??= loadSigningKey(deps.signingKeyPem?.replace(/\\n/g, '\n')).catch((err: Error) => {
      log.warn('A2A verdict signing disabled: no usable SVC_A2A_SIGNING_KEY_PEM; verdicts fail closed', {
        error: err.name,
      });
      return null;
    });
    return keyPromise;
  };

  async function runEngine(
    req: A2aWorkflowInput,
    payload: Record<string, unknown>,
    workflowId: string,
  ): Promise<MappedVerdict & { engine: string }> {
    const t = req.engine_timeout_ms;
    if (req.payload_type === 'financial_transaction') {
      const c = checkFinancialTransaction(payload);
      if (!c.ok) return { engine: 'decimal', status: 'blocked', reason: `${c.reason}: ${c.detail}` };
      const proofRef = await retainProof(deps.store, 'a2a_financial', null, c.proof);
      return { engine: 'decimal', status: 'verified', reason: c.detail, proofRef };
    }
    if (req.payload_type === 'code_execution') {
      const code = payload.code;
      if (typeof code !== 'string' || code.length === 0)
        return { engine: 'code', status: 'blocked', reason: 'invalid_payload: code must be a non-empty string' };
      if (Buffer.byteLength(code, 'utf8') > MAX_A2A_CODE_BYTES)
        return {
          engine: 'code',
          status: 'blocked',
          reason: `code_size_limit: code exceeds ${MAX_A2A_CODE_BYTES} bytes`,
        };
      const language = typeof payload.language === 'string' ? payload.language : 'python';
      // The existing /verify/code activity, with the message's engine budget as its scan deadline.
      const act = makeVerifyCodeActivity(
        { ...deps.proofContext, enginePool: deps.pools.engine },
        Math.max(100, t - 50),
      );
      const result = await a2aEnginePool.run(
        () => act({ input: { code, language }, org_id: null, workflow_id: workflowId }),
        t,
      );
      return { engine: 'code', ...mapCodeResult(result) };
    }
    if (req.payload_type === 'logic_assertion') {
      const query = payload.query;
      if (typeof query !== 'string' || query.trim() === '')
        return { engine: 'z3', status: 'blocked', reason: 'invalid_payload: query must be a non-empty string' };
      // Verified only when the payload's facts entail the assertion (engines/a2a/entailment.ts):
      // a satisfiable assertion proves nothing, Z3 chose the values.
      const budget = Math.max(100, t - 50);
      const solve = (dsl: string, timeoutMs: number) =>
        solveLogic(dsl, { timeoutMs, orgId: null, pool: deps.pools.logic });
      const outcome = await a2aEnginePool.run(() => checkEntailment(query, payload.facts, solve, budget), t);
      if (outcome.status !== 'verified') return { engine: 'z3', status: outcome.status, reason: outcome.reason };
      const proofRef = await retainProof(deps.store, 'a2a_logic', null, outcome.proof);
      return { engine: 'z3', status: 'verified', reason: outcome.reason, proofRef };
    }
    return {
      engine: 'passthrough',
      status: 'unverifiable',
      reason: `${req.payload_type} payloads are passed through unverified (no deterministic engine applies)`,
    };
  }

  async function a2aEvaluateActivity(req: A2aWorkflowInput & { workflow_id: string }): Promise<A2aEvaluation> {
    let payload: Record<string, unknown>;
    try {
      payload = unseal<Record<string, unknown>>(req.sealed, deps.lookupSecret, 'a2a-payload');
    } catch (err) {
      throw ApplicationFailure.nonRetryable(
        err instanceof SealError ? err.message : 'sealed payload unreadable',
        'SealError',
      );
    }
    const digestKey = Buffer.from(
      hkdfSync('sha256', deps.lookupSecret as string, 'svc-agent-digest', 'svc-agent-digest-v1', 32),
    );
    const requestDigest = `hmac-sha256:${createHmac('sha256', digestKey).update(JSON.stringify(payload), 'utf8').digest('hex')}`;
    let v: MappedVerdict & { engine: string };
    if (req.payload_bytes > req.max_payload_bytes) {
      v = {
        engine: 'none',
        status: 'blocked',
        reason: `size_limit: payload is ${req.payload_bytes} bytes, the limit is ${req.max_payload_bytes}`,
      };
    } else {
      try {
        v = await runEngine(req, payload, req.workflow_id);
      } catch (err) {
        const engine =
          req.payload_type === 'code_execution' ? 'code' : req.payload_type === 'logic_assertion' ? 'z3' : 'decimal';
        if (err instanceof EngineBusyError) v = { engine, status: 'error', reason: 'engine_busy' };
        else if (err instanceof EngineTimeoutError) v = { engine, status: 'error', reason: 'engine_timeout' };
        else throw err;
      }
    }
    let status: A2aStatusValue = v.status;
    let reason = v.reason;
    let jwt: string | null = null;
    const proofRef = status === 'verified' ? (v.proofRef ?? null) : null;
    if (status === 'verified' && !proofRef) {
      status = 'error';
      reason = 'proof_unavailable: a verified verdict needs a retained proof';
    }
    if (status !== 'unverifiable') {
      const key = await signingKey();
      if (!key) {
        if (status === 'verified') {
          status = 'error';
          reason = 'attestation_unavailable: SVC_A2A_SIGNING_KEY_PEM is not configured, so no verdict can be verified';
        }
      } else {
        try {
          const now = Math.floor(Date.now() / 1000);
          jwt = await new SignJWT({
            svc_a2a: {
              version: SERVICE_VERSION,
              deployment_id: deps.deploymentId,
              status,
              admissible: status === 'verified',
              // The admission beside the status, named as on every other attestation (docs/attestations.md).
              admission: status === 'verified' ? 'ADMIT' : 'BLOCKED',
              engine_used: v.engine,
              reason,
              payload_type: req.payload_type,
              sender_agent_id: req.agent_id,
              claimed_sender_agent_id: req.claimed_sender_agent_id,
              receiver_agent_id: req.receiver_agent_id,
              payload_hash: payloadHash(payload),
              proof_ref: status === 'verified' ? proofRef : null,
            },
          })
            .setProtectedHeader({ alg: 'ES256', typ: A2A_VERDICT_TYP, kid: key.kid })
            .setIssuer(deps.deploymentId)
            .setSubject(req.audit_trace_id)
            .setAudience(req.receiver_agent_id)
            .setIssuedAt(now)
            .setExpirationTime(now + 3600)
            .setJti(`a2av_${randomUUID().replace(/-/g, '')}`)
            .sign(key.privateKey);
        } catch {
          jwt = null;
          if (status === 'verified') {
            status = 'error';
            reason = 'attestation_unavailable: signing failed';
          }
        }
      }
    }
    return {
      status,
      engine_used: v.engine,
      reason,
      attestation_jwt: jwt,
      proof_ref: status === 'verified' ? proofRef : null,
      request_digest: requestDigest,
      summary: `${req.payload_type} from ${req.agent_id} to ${req.receiver_agent_id}: ${status}`,
    };
  }

  async function recordA2aMessageActivity(r: A2aMessageRecord): Promise<void> {
    await recordA2aMessage(deps.store, r);
  }

  return { a2aEvaluateActivity, recordA2aMessageActivity };
}
