// Activities of the agent endpoints: the guard activity (opens the sealed request, runs the
// exfiltration and tool-poisoning detectors off the event loop, checks the tool-definition pin,
// applies the tool policy and picks the engine) and the activity record. Only masked findings
// and, for clean requests, the engine input leave this activity (Temporal history).
import { createHmac, hkdfSync } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Store } from '../core/store.js';
import { unseal, SealError } from '../core/sealed.js';
import { sha256Ref, CanonicalDomainError } from '../core/canonical-json.js';
import { checkToolPin, recordAgentActivity } from '../persistence/agents.js';
import type {
  AgentWorkflowInput,
  GuardFindingData,
  GuardResult,
  RecordActivityInput,
  ToolGuardResult,
  VerifyGuardResult,
} from '../core/agent-workflow.js';
import { GuardUnavailableError, scanWithGuards } from './agent-guard-scan.js';
import type { EnginePool } from './isolation/engine-pool.js';
import type { GuardReport, GuardTask } from '../engines/agent-guards/index.js';
import { splitQuery } from '../engines/agents/route-query.js';
import { maskKeyShaped } from '../engines/agent-guards/text.js';
import { classifyTool, normalizeToolName, planToolChecks } from '../engines/agents/tool-policy.js';

export interface AgentActivityDeps {
  store: Store;
  /** SVC_API_KEY_LOOKUP_SECRET: opens sealed inputs; unset, every agent request fails closed (503). */
  lookupSecret?: string;
  /** The engine pool, created by the worker's composition root (workers/verification-worker.ts): the guards run there (ENGINE_TASKS.guard). */
  enginePool: EnginePool;
}

/** Keyed digest of the request (a plain SHA-256 of a short secret-bearing text could be guessed). */
function requestDigest(secret: string, value: unknown): string {
  const key = Buffer.from(hkdfSync('sha256', secret, 'svc-agent-digest', 'svc-agent-digest-v1', 32));
  return `hmac-sha256:${createHmac('sha256', key).update(JSON.stringify(value), 'utf8').digest('hex')}`;
}

const MAX_CLAIM = 2000;

export function makeAgentActivities(deps: AgentActivityDeps) {
  /** The guards of one request of `orgId` in the engine pool (fair across organizations). */
  const scan = async (task: GuardTask, timeoutMs: number, orgId: string | null): Promise<GuardReport> =>
    (await scanWithGuards(deps.enginePool, task, { orgId, timeoutMs })).report;
  async function agentGuardActivity(req: AgentWorkflowInput): Promise<GuardResult> {
    const secret = deps.lookupSecret;
    let opened: Record<string, unknown>;
    try {
      opened = unseal<Record<string, unknown>>(req.sealed, secret, `agent-${req.kind}`);
    } catch (err) {
      throw ApplicationFailure.nonRetryable(
        err instanceof SealError ? err.message : 'sealed input unreadable',
        'SealError',
      );
    }
    const digest = requestDigest(secret as string, opened);
    if (req.kind === 'verify') {
      const query = String(opened.query ?? '');
      const toolSchema = (opened.tool_schema ?? null) as Record<string, unknown> | null;
      let report;
      try {
        report = await scan(
          {
            op: 'verify',
            query,
            tool_schema: toolSchema,
            schema_ddl: typeof opened.schema_ddl === 'string' ? opened.schema_ddl : null,
            allowed_domains: req.agent.allowed_domains,
          },
          req.guard_timeout_ms,
          req.agent.org_id,
        );
      } catch (err) {
        if (err instanceof GuardUnavailableError)
          throw ApplicationFailure.nonRetryable(err.message, 'GuardUnavailableError');
        throw err;
      }
      const findings: GuardFindingData[] = [...report.exfiltration, ...(report.tool_poisoning ?? [])];
      const base: VerifyGuardResult = {
        kind: 'verify',
        outcome: 'clean',
        findings,
        tool_name: toolSchema && typeof toolSchema.name === 'string' ? normalizeToolName(toolSchema.name) : null,
        pinned_hash: null,
        presented_hash: null,
        tool_pin: 'not_run',
        tool_poisoning: toolSchema ? 'clean' : 'not_run',
        parts: [],
        claim: '',
        request_digest: digest,
      };
      if (findings.length > 0) {
        return { ...base, outcome: 'flagged', claim: `[withheld: ${findings.length} guard finding(s)]` };
      }
      if (toolSchema && base.tool_name) {
        let hash: string;
        try {
          hash = sha256Ref(toolSchema);
        } catch (err) {
          if (!(err instanceof CanonicalDomainError)) throw err;
          return {
            ...base,
            outcome: 'flagged',
            findings: [
              {
                detector: 'tool_poisoning',
                kind: 'non_canonical_definition',
                category: 'hidden_instruction',
                location: 'tool_schema',
                encoding: 'plain',
                excerpt: 'definition outside the canonical JSON domain',
              },
            ],
            claim: '[withheld]',
          };
        }
        const pin = await checkToolPin(deps.store, req.agent.id, req.agent.org_id, base.tool_name, hash);
        if (pin.state === 'changed') {
          return {
            ...base,
            outcome: 'tool_changed',
            pinned_hash: pin.pinned_hash,
            presented_hash: hash,
            claim: '[withheld: tool definition changed]',
          };
        }
        base.tool_pin = pin.state;
        base.presented_hash = hash;
      }
      // Every fenced block and every claim is a part of its own; the workflow runs each routed part.
      const parts = splitQuery(query, {
        schemaDdl: typeof opened.schema_ddl === 'string' ? opened.schema_ddl : undefined,
      }).map((p) => ({
        index: p.index,
        // Part texts reach the response and the audit entry: key-shaped tokens masked, as the claim is.
        text: maskKeyShaped(p.text),
        route: p.route ? { engine: p.route.engine, input: p.route.input as Record<string, unknown> } : null,
        reason: p.reason,
      }));
      // The claim reaches the response and the audit entry: key-shaped tokens are masked whatever the detectors said.
      const claim = maskKeyShaped(query.length > MAX_CLAIM ? `${query.slice(0, MAX_CLAIM)}…` : query);
      return { ...base, parts, claim };
    }
    // Tool call
    const args = (opened.arguments ?? {}) as Record<string, unknown>;
    const toolRaw = String(req.tool ?? '');
    const realTool = normalizeToolName(toolRaw);
    const cls = classifyTool(realTool);
    // What the records show of the name: a key-shaped one is masked (no listed tool is key-shaped).
    const tool = maskKeyShaped(realTool);
    const reasons: string[] = [];
    const norm = (l: string[]) => l.map(normalizeToolName);
    const denied = norm(req.agent.denied_tools);
    const allowed = norm(req.agent.allowed_tools);
    if (denied.includes(realTool)) reasons.push(`'${tool}' is in the agent's denied_tools`);
    if (!cls.known)
      reasons.push(
        `'${tool}' is an unknown tool (on neither the safe nor the dangerous list): denied regardless of risk score`,
      );
    else if (cls.dangerous && !allowed.includes(realTool))
      reasons.push(`'${tool}' is a dangerous tool (${cls.category}) and is not in the agent's allowed_tools`);
    else if (!cls.dangerous && allowed.length > 0 && !allowed.includes(realTool))
      reasons.push(`'${tool}' is not in the agent's allowed_tools`);
    let report;
    try {
      report = await scan(
        { op: 'arguments', arguments: args, allowed_domains: req.agent.allowed_domains },
        req.guard_timeout_ms,
        req.agent.org_id,
      );
    } catch (err) {
      if (err instanceof GuardUnavailableError)
        throw ApplicationFailure.nonRetryable(err.message, 'GuardUnavailableError');
      throw err;
    }
    const findings: GuardFindingData[] = report.exfiltration;
    // Every string argument that can carry code, a command or SQL is checked, in the tool's own language.
    let checks: ToolGuardResult['checks'] = [];
    if (reasons.length === 0 && findings.length === 0) {
      const plan = planToolChecks(realTool, cls.category, args);
      if (plan) {
        reasons.push(...plan.denials);
        if (plan.denials.length === 0) checks = plan.checks;
      }
    }
    const claim = findings.length
      ? `[withheld: ${findings.length} guard finding(s)] tool ${tool}`
      : maskKeyShaped(`tool ${tool}: ${JSON.stringify(args).slice(0, MAX_CLAIM)}`);
    return {
      kind: 'tool',
      tool,
      category: cls.category,
      dangerous: cls.dangerous,
      known: cls.known,
      reasons,
      findings,
      checks,
      claim,
      request_digest: digest,
    };
  }

  async function recordAgentActivityActivity(rec: RecordActivityInput): Promise<{ id: string }> {
    // Idempotent across retries: one record per workflow (persistence/agents.ts).
    return recordAgentActivity(deps.store, {
      agent_id: rec.agent_id,
      org_id: rec.org_id,
      kind: rec.kind,
      status: rec.status,
      summary: rec.summary,
      workflow_id: rec.workflow_id,
      audit_log_id: rec.audit_log_id,
      conversation_id: rec.conversation_id,
      step_number: rec.step_number,
      tool: rec.tool,
      engine: rec.engine,
      findings: rec.findings.map((f) => ({ ...f })), // the stored record's plain string fields
    });
  }

  return { agentGuardActivity, recordAgentActivityActivity };
}
