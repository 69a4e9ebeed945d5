// Scan results → the contract's EngineOutcome for /verify/code.
//
// is_valid (admission) is true iff there is no critical finding; is_safe is true iff there
// is no critical and no high finding. constraint_id is `code_verifier.code_safe` when
// is_safe, `code_verifier.code_unsafe` otherwise (so an admitted scan can still be unsafe:
// high findings do not block).
import type { EngineOutcome } from '../../core/diagnostic.js';
import type { Finding } from './findings.js';
import { toIssue } from './findings.js';

export const CONSTRAINT = {
  safe: 'code_verifier.code_safe',
  unsafe: 'code_verifier.code_unsafe',
  emptyCode: 'code_verifier.empty_code',
  unsupportedLanguage: 'code_verifier.unsupported_language',
  parseFailure: 'code_verifier.parse_failure',
  /** Some of the code is not valid syntax of the declared language: a verdict on it would be unproven. */
  syntaxError: 'code_verifier.does_not_parse_as_language',
  timeout: 'code_verifier.timeout',
  /** The name analysis exceeded its bound (scopes.ts): refused, never guessed. */
  analysisLimit: 'code_verifier.analysis_limit_exceeded',
  internalError: 'code_verifier.internal_error',
} as const;

export interface ScanSummary {
  is_safe: boolean;
  is_valid: boolean;
  critical_count: number;
  high_count: number;
  constraint_id: string;
}

export function summarize(findings: readonly Finding[]): ScanSummary {
  const critical = findings.filter((f) => f.severity === 'critical').length;
  const high = findings.filter((f) => f.severity === 'high').length;
  const isSafe = critical === 0 && high === 0;
  return {
    is_safe: isSafe,
    is_valid: critical === 0,
    critical_count: critical,
    high_count: high,
    constraint_id: isSafe ? CONSTRAINT.safe : CONSTRAINT.unsafe,
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function provenMessage(findings: readonly Finding[], s: ScanSummary): string {
  const first = (severity: Finding['severity']) => {
    const f = findings.find((x) => x.severity === severity);
    return f ? ` (first on line ${f.line_number}: ${f.description})` : '';
  };
  if (s.critical_count > 0) {
    return `Code scan completed: ${plural(s.critical_count, 'critical issue')} found${first('critical')}; the code is not admitted.`;
  }
  if (s.high_count > 0) {
    return `Code scan completed: no blocking issue, but ${plural(s.high_count, 'high-severity issue')} found${first('high')}.`;
  }
  if (findings.length > 0) {
    return `Code scan completed: no critical or high-severity issues; ${plural(findings.length, 'lower-severity finding')}.`;
  }
  return 'Code scan completed: no security issues found.';
}

export function provenOutcome(
  language: string,
  findings: readonly Finding[],
  proof: Record<string, unknown>,
): EngineOutcome {
  const s = summarize(findings);
  return {
    kind: 'proven',
    agentMessage: provenMessage(findings, s),
    developerFields: {
      constraint_id: s.constraint_id,
      is_safe: s.is_safe,
      is_valid: s.is_valid,
      language,
      critical_count: s.critical_count,
      issues: findings.map(toIssue),
    },
    proof,
  };
}

export function blockedOutcome(
  constraintId: string,
  agentMessage: string,
  extra: Record<string, unknown> = {},
): EngineOutcome {
  return {
    kind: 'blocked',
    agentMessage,
    developerFields: { constraint_id: constraintId, is_valid: false, ...extra },
  };
}
