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

/** Pads columns to their widest cell (two spaces apart); the first row is the header. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, Array.from(c).length)));
  return rows
    .map((row) =>
      row
        .map((c, i) => (i === row.length - 1 ? c : c + ' '.repeat((widths[i] as number) - Array.from(c).length)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One line of at most `max` characters (control characters and newlines shown as spaces). */
export function excerpt(text: string, max: number): string {
  const one = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const points = Array.from(one);
  return points.length > max ? `${points.slice(0, max - 1).join('')}\u2026` : one;
}

const OUTCOME_WORDS: Record<Outcome, string> = {
  verified: 'verified',
  not_verified: 'not verified',
  blocked: 'blocked',
  error: 'check did not complete',
};

const FALSIFYING_METHODS = new Set(['canonical_form', 'numerical_evaluation', 'numerical_sampling']);

const str = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/**
 * A verdict in words. When the result carries an admission (code, SQL), it leads: proven unsafe
 * code is `BLOCKED (proof: unsafe)`, never a text that starts with VERIFIED.
 */
export function verdictText(kind: string, result: unknown, outcome: Outcome): string {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const status = str(r.status);
  const admission = str(r.admission);
  if (admission !== undefined) {
    const why =
      status === 'VERIFIED'
        ? `proof: ${admission === 'ADMIT' ? 'safe' : kind === 'sql' ? 'rejected' : 'unsafe'}`
        : `not proven: ${status ?? 'no status'}`;
    return `${admission} (${why})`;
  }
  // A math claim the engine showed false (the two sides differ by an exact nonzero term): the
  // contract's status stays UNVERIFIABLE, but a person reads "false", not "could not check".
  // Only the engine's exact methods count here (canonical form, exact evaluation, a concrete
  // counterexample), never a float or tolerance comparison.
  if (
    kind === 'math' &&
    status === 'UNVERIFIABLE' &&
    r.is_valid === false &&
    FALSIFYING_METHODS.has(str(r.method) ?? '') &&
    typeof r.simplified_difference === 'string'
  ) {
    return `FALSE (the sides differ by ${r.simplified_difference}; status UNVERIFIABLE)`;
  }
  const verdict =
    status ??
    str(r.verdict) ??
    (typeof r.verified === 'boolean' ? (r.verified ? 'verified' : 'not verified') : undefined) ??
    str(r.agreement_status) ??
    'no status';
  return `${verdict} (${OUTCOME_WORDS[outcome]})`;
}

/** The first line of a verdict: `code: BLOCKED (proof: unsafe)`, `math: VERIFIED (verified)`. */
export function headline(kind: string, result: unknown, outcome: Outcome): string {
  return `${kind}: ${verdictText(kind, result, outcome)}`;
}

/** A few lines: the verdict (admission first), the outcome, the proof reference, and the service's own words. */
export function humanVerdict(
  kind: VerifyKind,
  result: unknown,
  outcome: Outcome,
  opts: { workflowId?: string } = {},
): string {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const dev = (
    typeof r.developer_fields === 'object' && r.developer_fields !== null ? r.developer_fields : {}
  ) as Record<string, unknown>;
  const lines = [headline(kind, result, outcome)];
  const add = (label: string, v: unknown) => {
    const s = str(v);
    if (s !== undefined && s !== '') lines.push(`  ${label}: ${s}`);
  };
  if (r.admission !== undefined) add('status', `${str(r.status) ?? 'no status'}, admission: ${str(r.admission)}`);
  add('proof_ref', r.proof_ref);
  add('attestation', (r.attestation as Record<string, unknown> | undefined)?.id);
  add('constraint', dev.constraint_id);
  add('message', r.agent_message ?? r.message ?? r.reasoning ?? r.detail ?? r.error);
  if (kind === 'math') {
    add('simplified difference', r.simplified_difference);
    add('value', r.value);
  }
  if (kind === 'logic' && r.model && typeof r.model === 'object') {
    lines.push(
      `  model: ${Object.entries(r.model as Record<string, unknown>)
        .map(([k, v]) => `${k}=${str(v)}`)
        .join(', ')}`,
    );
  }
  if (kind === 'consensus') {
    add('final answer', r.final_answer);
    add('confidence', r.confidence);
    add('meets requirement', r.meets_requirement);
  }
  if ((kind === 'code' || kind === 'sql') && Array.isArray(dev.issues)) {
    // A position only where the engine gives one (never "line ?").
    for (const i of dev.issues.slice(0, 10) as Record<string, unknown>[]) {
      const line = str(i.line_number);
      lines.push(`  issue: [${str(i.severity)}]${line ? ` line ${line}` : ''}: ${str(i.description) ?? str(i.type)}`);
    }
  }
  if (opts.workflowId) add('workflow', opts.workflowId);
  return lines.join('\n');
}
