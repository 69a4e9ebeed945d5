// Human-readable output of `svc` and the process I/O it writes to (replaceable in tests).
import type { Outcome, VerifyKind } from '../outcome.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  readStdin(): string;
  readStdinBytes(): Uint8Array;
  stderrIsTTY: boolean;
  stderr: NodeJS.WritableStream;
}

const OUTCOME_WORDS: Record<Outcome, string> = {
  verified: 'verified',
  not_verified: 'not verified',
  blocked: 'blocked',
  error: 'check did not complete',
};

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/**
 * The first line of a verdict. When the result carries an admission (code, SQL), it leads: proven
 * unsafe code is `code: BLOCKED (proof: unsafe)`, never a line that starts with VERIFIED.
 */
export function headline(kind: string, result: unknown, outcome: Outcome): string {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const status = str(r.status);
  const admission = str(r.admission);
  if (admission !== undefined) {
    const why = status === 'VERIFIED' ? `proof: ${admission === 'ADMIT' ? 'safe' : kind === 'sql' ? 'rejected' : 'unsafe'}` : `not proven: ${status ?? 'no status'}`;
    return `${kind}: ${admission} (${why})`;
  }
  const verdict = status ?? str(r.verdict) ?? (typeof r.verified === 'boolean' ? (r.verified ? 'verified' : 'not verified') : undefined) ?? str(r.agreement_status) ?? 'no status';
  return `${kind}: ${verdict} (${OUTCOME_WORDS[outcome]})`;
}

/** A few lines: the verdict (admission first), the outcome, the proof reference, and the service's own words. */
export function humanVerdict(kind: VerifyKind, result: unknown, outcome: Outcome, opts: { workflowId?: string } = {}): string {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const dev = (typeof r.developer_fields === 'object' && r.developer_fields !== null ? r.developer_fields : {}) as Record<string, unknown>;
  const lines = [headline(kind, result, outcome)];
  const add = (label: string, v: unknown) => {
    const s = str(v);
    if (s !== undefined && s !== '') lines.push(`  ${label}: ${s}`);
  };
  if (r.admission !== undefined) add('status', `${str(r.status) ?? 'no status'}, admission: ${str(r.admission)}`);
  add('proof_ref', r.proof_ref);
  add('constraint', dev.constraint_id);
  add('message', r.agent_message ?? r.message ?? r.reasoning ?? r.detail ?? r.error);
  if (kind === 'math') {
    add('simplified difference', r.simplified_difference);
    add('value', r.value);
  }
  if (kind === 'logic' && r.model && typeof r.model === 'object') {
    lines.push(`  model: ${Object.entries(r.model as Record<string, unknown>).map(([k, v]) => `${k}=${str(v)}`).join(', ')}`);
  }
  if (kind === 'consensus') {
    add('final answer', r.final_answer);
    add('confidence', r.confidence);
    add('meets requirement', r.meets_requirement);
  }
  if ((kind === 'code' || kind === 'sql') && Array.isArray(dev.issues)) {
    for (const i of dev.issues.slice(0, 10) as Record<string, unknown>[]) lines.push(`  issue: [${str(i.severity)}] line ${str(i.line_number) ?? '?'}: ${str(i.description) ?? str(i.type)}`);
  }
  return lines.join('\n');
}
