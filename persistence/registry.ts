// The registry of every collection the service keeps (issue 22, persistence/README.md): what
// makes it grow, or what bounds it. A `growing` collection is read on a request path only by
// `_id` (a point lookup, or a bounded set of them); a `bounded` one may be scanned, its bound
// is the cost. The store contract test (test/http/store-contract.test.ts) fails on a read of a
// growing collection that is not a point lookup, and on a collection missing from this list.
//
// Owners: each persistence/<family>.ts module declares the queries of its rows; docs/store-access.md
// has the inventory and the measured facts behind the rules.

export interface CollectionEntry {
  growth: 'growing' | 'bounded';
  /** What adds documents (growing) or the bound (bounded). */
  by: string;
  /** The persistence module that owns its queries. */
  module: string;
}

export const COLLECTIONS: Record<string, CollectionEntry> = {
  // accounts (persistence/accounts.ts)
  organizations: { growth: 'growing', by: 'one per organization', module: 'accounts' },
  users: { growth: 'growing', by: 'one per user', module: 'accounts' },
  user_emails: { growth: 'growing', by: 'one pointer {_id: lower-cased e-mail} per user', module: 'accounts' },
  api_keys: { growth: 'growing', by: 'one per key ever created (revoked keys stay)', module: 'accounts' },
  api_key_digests: { growth: 'growing', by: 'one pointer {_id: HMAC lookup digest} per key', module: 'accounts' },
  api_key_legacy_digests: {
    growth: 'growing',
    by: 'one pointer {_id: SHA-256 digest} per pre-7.2 key (backfilled)',
    module: 'accounts',
  },
  api_key_rotations: { growth: 'growing', by: 'one marker per rotated key', module: 'accounts' },
  api_key_revocations: { growth: 'growing', by: 'one marker per revoked key', module: 'accounts' },
  org_directory: {
    growth: 'growing',
    by: 'one head per organization and list (keys, users) + one entry per key or user',
    module: 'accounts',
  },
  leak_notifications: { growth: 'growing', by: 'one per leaked-key notice', module: 'accounts' },
  // agents (persistence/agents.ts)
  agents: { growth: 'growing', by: 'one per registered agent', module: 'agents' },
  agent_tokens: { growth: 'growing', by: 'one pointer {_id: token digest} per agent', module: 'agents' },
  agent_nums: { growth: 'growing', by: 'one pointer {_id: org#num} per agent', module: 'agents' },
  agent_usage: { growth: 'growing', by: 'two per agent per hour/day (swept when expired)', module: 'agents' },
  agent_tool_pins: { growth: 'growing', by: 'one per agent and tool', module: 'agents' },
  agent_activity: { growth: 'growing', by: 'one per agent action, at position {agent}#{seq}', module: 'agents' },
  agent_activity_heads: { growth: 'growing', by: 'one per agent (the highest position, a hint)', module: 'agents' },
  agent_activity_workflows: {
    growth: 'growing',
    by: 'one pointer {_id: workflow id} per agent action (idempotence)',
    module: 'agents',
  },
  a2a_messages: { growth: 'growing', by: 'one per A2A message', module: 'agents' },
  counters: {
    growth: 'growing',
    by: 'one per named sequence: agents, and approvals:<agent_id> per agent',
    module: 'agents',
  },
  // approvals and action outcomes (persistence/approvals.ts): read by _id only
  agent_approvals: {
    growth: 'growing',
    by: 'one per tool call that waits for approval, {_id: <agent>:<n>}',
    module: 'approvals',
  },
  agent_approval_decisions: { growth: 'growing', by: 'one insert-once decision per approval', module: 'approvals' },
  agent_actions: { growth: 'growing', by: 'one per admitted or approved tool call', module: 'approvals' },
  agent_action_outcomes: { growth: 'growing', by: 'one insert-once outcome per action', module: 'approvals' },
  agent_action_counters: {
    growth: 'bounded',
    by: 'one overall + one per organization (unreported actions)',
    module: 'approvals',
  },
  // uploads (persistence/uploads.ts)
  uploads: {
    growth: 'bounded',
    by: 'chunks of uploads in flight (the API deletes each after its request; ≤ upload slots × chunks) + crash leftovers younger than UPLOAD_MAX_AGE_MS (1 h), swept in the background',
    module: 'uploads',
  },
  // limits (persistence/limits.ts)
  rate_counters: {
    growth: 'bounded',
    by: 'one per (subject, window) alive, swept as windows expire',
    module: 'limits',
  },
  org_events: { growth: 'growing', by: 'one per organization, kind and day', module: 'limits' },
  // verification contexts (persistence/contexts.ts)
  verification_contexts_issued: { growth: 'growing', by: 'one per issued VERIFIED document', module: 'contexts' },
  // start-up migrations (persistence/migrations.ts)
  migrations: { growth: 'bounded', by: 'one marker per migration run to completion', module: 'migrations' },
  // batch (persistence/batch.ts)
  batch_jobs: {
    growth: 'growing',
    by: 'one per batch job, kept while its slot is not reused (≤ SVC_BATCH_MAX_JOBS)',
    module: 'batch',
  },
  batch_results: {
    growth: 'growing',
    by: 'one result document per unit of a job (<job>#<unit>: ≤ 25 math items, or one item), deleted with the job',
    module: 'batch',
  },
  batch_requests: {
    growth: 'growing',
    by: 'one per job (its queries and types), deleted with the job',
    module: 'batch',
  },
  batch_slots: {
    growth: 'bounded',
    by: 'SVC_BATCH_MAX_JOBS (the job slots, _id the number as a string; admission reads them by _id, whole only in the fallback when the directory has no slot)',
    module: 'batch',
  },
  batch_slot_queue: {
    growth: 'growing',
    by: 'one entry per slot release (finished or freed job), _id the position as a string, read by _id from the head cursor; swept below it in the background',
    module: 'batch',
  },
  batch_slot_cursors: { growth: 'bounded', by: 'four cursor documents (next, head, tail, swept)', module: 'batch' },
  batch_evictors: {
    growth: 'bounded',
    by: 'one per API process alive, plus dead ones until a sweep finished their evictions (session 24)',
    module: 'batch',
  },
  batch_slot_claims: {
    growth: 'bounded',
    by: 'SVC_BATCH_MAX_JOBS slots × live claim generations (claims older than an hour swept: a live process its own by _id every 5 min; a dead process its claims an hour after a live one finds it dead (batch_evictors), older code at a live process first sweep or whole read every 6 h, so up to ~7 h; session 24)',
    module: 'batch',
  },
  // audit, proofs, attestations (persistence/audit.ts, persistence/proofs.ts)
  audit_logs: {
    growth: 'growing',
    by: 'one entry per verdict (verification, batch item, agent action); a /verify/math entry carries its attestation record (session 16)',
    module: 'audit',
  },
  audit_seq: {
    growth: 'growing',
    by: 'one position entry {org#seq} per audit entry (the last contiguous one is the head)',
    module: 'audit',
  },
  audit_claims: {
    growth: 'growing',
    by: 'one claim {org#seq} per group commit of the chain, naming its entries (session 15: a stalled position is healed by point lookups); session 24: retired by its writer, the rest by a paced pass of computed ids below head - 128',
    module: 'audit',
  },
  audit_claim_cursors: {
    growth: 'bounded',
    by: 'one per organization: how far the audit claims pass has visited its positions (review s24 B2)',
    module: 'audit',
  },
  audit_head_moves: {
    growth: 'growing',
    by: 'one per move of a head {org@from@hash} written before session 14 (no longer written or read: the positions move the head)',
    module: 'audit',
  },
  audit_heads: {
    growth: 'bounded',
    by: 'one per organization (grows with organizations, not with use)',
    module: 'audit',
  },
  audit_rollups: {
    growth: 'bounded',
    by: 'two per organization: the complete roll-up (all-time counts + the last 169 hourly buckets, packed into one string: rollupDoc) and the recent one (org#recent: the counts and the hours changed since, recentRollupDoc)',
    module: 'audit',
  },
  proofs: {
    growth: 'growing',
    by: 'one per distinct proved artifact, except /verify/math and batch math items (in their audit entry since session 24)',
    module: 'proofs',
  },
  attestations: {
    growth: 'growing',
    by: 'one per VERIFIED verdict with an attestation, except /verify/math (in its audit entry since session 16)',
    module: 'proofs',
  },
};

/**
 * Code sites that may read growing collections without a key because they run off every request
 * path: the one-off start-up migrations (persistence/migrations.ts) that backfill pointers for
 * records written before the pointers existed. Matched against the capture's site (`file:line`).
 */
export const OFF_PATH_SITES: Array<{ file: string; why: string }> = [
  {
    file: 'persistence/migrations.ts',
    why: 'start-up backfill of pointers for legacy records (once per process start, in the background)',
  },
];
