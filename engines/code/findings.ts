// Findings: what the scanner reports, in the contract's `issues[]` shape plus the rule id.

export type Severity = 'critical' | 'high' | 'medium' | 'low';

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { critical: 0, high: 1, medium: 2, low: 3 };

export type IssueType =
  | 'shell_execution'
  | 'dynamic_code_execution'
  | 'unsafe_deserialization'
  | 'sandbox_escape'
  | 'hardcoded_credential'
  | 'weak_password_hash'
  | 'sql_injection'
  | 'insecure_tls'
  | 'dynamic_import'
  | 'dynamic_call'
  | 'file_inclusion'
  | 'file_deletion'
  | 'xss_sink'
  | 'insecure_permissions'
  | 'insecure_tempfile'
  | 'raw_socket'
  | 'outbound_http'
  | 'parse_error';

/** One entry of developer_fields.issues (exactly the contract's four fields). */
export interface Issue {
  severity: Severity;
  type: IssueType;
  line_number: number;
  description: string;
}

/** A finding as recorded in the proof: the issue plus the rule that produced it. */
export interface Finding extends Issue {
  rule_id: string;
}

/** Sorted by line, then severity, then rule id; one finding per (rule, line). */
export function normalizeFindings(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of findings) {
    const key = `${f.rule_id}\u0000${f.line_number}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out.sort(
    (a, b) =>
      a.line_number - b.line_number ||
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0),
  );
}

export function toIssue(f: Finding): Issue {
  return { severity: f.severity, type: f.type, line_number: f.line_number, description: f.description };
}
