// /verify/consensus as an activity: the engines run in parallel inside it under the 30 s
// aggregate deadline (activities/consensus/run.ts); then the proofs of VERIFIED engine
// runs are retained, and a consensus that every engine VERIFIED gets its own proof artifact
// (listing the engine proofs) and an attestation. Nothing else can make it VERIFIED.
import { SERVICE_VERSION } from '../core/version.js';
import { finalizeOutcome, retainProof, type ProofContext } from './proofs.js';
import { requiredPercent, runConsensus, type ChainEntry, type VerificationMode } from './consensus/run.js';
import type { VerifyActivityInput } from './types.js';
import type { LogicPool } from '../engines/logic/index.js';
import type { EnginePool } from './isolation/engine-pool.js';
import { pooledConsensusMath } from './consensus/pooled-math.js';

export interface ConsensusRequest {
  query: string;
  verification_mode: VerificationMode;
  min_confidence: number;
}

export type ConsensusActivityResult = {
  status: 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';
  final_answer: string;
  confidence: number;
  engines_used: number;
  agreement_status: 'UNANIMOUS' | 'MAJORITY' | 'SPLIT' | 'NONE';
  verification_chain: Array<ChainEntry & { proof_ref?: string }>;
  total_latency_ms: number;
  meets_requirement: boolean;
  verification_mode: VerificationMode;
  min_confidence: number;
  query_kind: 'natural_language' | 'arithmetic' | 'statistical';
  evaluated_expression: string | null;
  proof_ref?: string;
  attestation?: { id: string; token: string; status: string };
  /** Why a VERIFIED consensus was downgraded (attestation signing failed). */
  constraint_id?: string;
  /** Internal: the sandbox could not run a required engine; the route answers 503 and strips it. */
  sandbox_failure?: 'unavailable' | 'capacity';
};

export const CONSENSUS_VERIFIER = 'svc-consensus';

export function makeVerifyConsensusActivity(
  deps: ProofContext & { z3TimeoutMs: number; pools: { logic: LogicPool; engine: EnginePool } },
) {
  return async function verifyConsensusActivity(
    req: VerifyActivityInput<ConsensusRequest>,
  ): Promise<ConsensusActivityResult> {
    const started = performance.now();
    const { query, verification_mode: mode, min_confidence: minConfidence } = req.input;
    const c = await runConsensus(query, mode, {
      // The math steps run in the engine threads: the worker's main thread loads no mathjs.
      math: pooledConsensusMath(deps.pools.engine, req.org_id),
      z3TimeoutMs: deps.z3TimeoutMs,
      orgId: req.org_id,
      logicPool: deps.pools.logic,
    });

    const chain: Array<ChainEntry & { proof_ref?: string }> = [];
    // Engine runs are the last entries of the chain (a translation entry may come first).
    const offset = c.chain.length - c.runs.length;
    for (let i = 0; i < c.chain.length; i++) {
      const entry = c.chain[i] as ChainEntry;
      const proof = i >= offset ? c.runs[i - offset]?.run.proof : undefined;
      if (entry.status === 'VERIFIED' && proof) {
        chain.push({ ...entry, proof_ref: await retainProof(deps.store, proof.engine, req.org_id, proof.artifact) });
      } else {
        chain.push(entry);
      }
    }

    let status = c.status;
    let proofRef: string | undefined;
    let attestation: ConsensusActivityResult['attestation'];
    let constraintId: string | undefined;
    if (status === 'VERIFIED') {
      const artifact = {
        method: 'unanimous_verified_consensus',
        verifier: CONSENSUS_VERIFIER,
        verifier_version: SERVICE_VERSION,
        query,
        evaluated_expression: c.evaluatedExpression,
        verification_mode: mode,
        final_answer: c.finalAnswer,
        agreement_status: c.agreement,
        engines: chain.map((e) => ({
          engine: e.engine,
          method: e.method,
          status: e.status,
          result: e.result,
          proof_ref: e.proof_ref ?? null,
        })),
      };
      const f = await finalizeOutcome(
        deps,
        { kind: 'proven', agentMessage: 'Every engine proved the claim.', developerFields: {}, proof: artifact },
        {
          engine: 'consensus',
          orgId: req.org_id,
          evaluatedExpression: c.evaluatedExpression ?? query,
          confidence: c.confidence / 100,
        },
      );
      if (f.diagnostic.status === 'VERIFIED' && f.diagnostic.proof_ref && f.attestation) {
        proofRef = f.diagnostic.proof_ref;
        attestation = { id: f.attestation.jti, token: f.attestation.token, status: f.attestation.status };
      } else {
        // Proven but unattested: never VERIFIED.
        status = 'UNVERIFIABLE';
        constraintId = String(f.diagnostic.developer_fields.constraint_id ?? 'api.attestation.signing_error');
      }
    }

    return {
      status,
      final_answer: c.finalAnswer,
      confidence: c.confidence,
      engines_used: c.runs.length,
      agreement_status: c.agreement,
      verification_chain: chain,
      total_latency_ms: Math.round(performance.now() - started),
      meets_requirement: status === 'VERIFIED' && c.confidence >= requiredPercent(minConfidence),
      verification_mode: mode,
      min_confidence: minConfidence,
      query_kind: c.queryKind,
      evaluated_expression: c.evaluatedExpression,
      ...(proofRef ? { proof_ref: proofRef } : {}),
      ...(attestation ? { attestation } : {}),
      ...(constraintId ? { constraint_id: constraintId } : {}),
      ...(c.sandboxFailure ? { sandbox_failure: c.sandboxFailure } : {}),
    };
  };
}
