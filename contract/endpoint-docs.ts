// The reading half of the API reference (issue 27, point 8): per operation a description, a
// realistic request (what "Try it out" pre-fills) and a description and example for every request
// field (body, form, path and query). api/openapi.ts merges it into the document generated from
// contract/endpoints.ts; test/unit/openapi-content.test.ts fails when an operation or field lacks one.
// Imports nothing.

/** [description, example] of one request field. */
export type FieldDoc = readonly [description: string, example: unknown];

export interface OperationDoc {
  description: string;
  /** The request body "Try it out" pre-fills (JSON operations; multipart ones use the field examples). */
  example?: unknown;
  /** Body, form, path and query fields by name. */
  fields?: Readonly<Record<string, FieldDoc>>;
}

const VC_DOCUMENT = {
  spec_version: '1.0',
  object: { formal_statement: 'SELECT id FROM users WHERE id = 1' },
  context: {
    interpretation: { dialect: 'sqlite' },
    proof: { verifier: 'sql', verifier_version: '7.3.0' },
    evidence: { evidence: { constraint_id: 'sql_verifier.sql_valid' }, proof_ref: null },
    decision: { admission: 'DENY' },
  },
  verdict: 'UNVERIFIABLE',
};

/** The fields of the document itself (validate and resolve take it bare or as `{document}`). */
const VC_FIELDS: Record<string, FieldDoc> = {
  document: ['The Verification Context document (or send the document itself as the body).', VC_DOCUMENT],
  spec_version: ['Always "1.0".', '1.0'],
  object: ['What was checked: `formal_statement` and, for translated claims, the `formalization`.', VC_DOCUMENT.object],
  context: [
    'How it was checked: interpretation, proof (verifier and version), evidence with `proof_ref`, and the admission decision.',
    VC_DOCUMENT.context,
  ],
  verdict: ['VERIFIED (needs a proof_ref), UNVERIFIABLE or BLOCKED.', 'UNVERIFIABLE'],
};

const provider: FieldDoc = [
  'LLM provider for the translation step (one configured on the server; default SVC_LLM_PROVIDER).',
  'local',
];
const agentId: FieldDoc = ['Agent id returned by POST /agents/register.', 'agt_5f2c9a1e7b3d4c60a8e1f9b2'];
const toolName: FieldDoc = ['Tool name as the agent calls it.', 'read_file'];
const approvalId: FieldDoc = ['Approval id from the 202 pending_approval answer.', 'apr_1'];
const orgId: FieldDoc = ['Organization id (your own; another organization is refused with 403).', 'org_3b1f8e2a9c4d'];
const logId: FieldDoc = [
  'Audit entry id from /audit/logs or /admin/compliance/export/csv.',
  'aud_7c1e2f3a4b5d6e7f8a9b0c1d',
];
const pageLimit: FieldDoc = ['Entries per page (1-1000, default 100).', 50];
const pageCursor: FieldDoc = ['`next_cursor` of the previous page; absent for the first page.', '1732600000123'];
const logStatus: FieldDoc = ['Only entries with this outcome: `verified` or `blocked`.', 'verified'];
const badgeLabel: FieldDoc = ['Left-hand text of the badge.', 'verification'];

export const OPERATION_DOCS: Readonly<Record<string, OperationDoc>> = {
  health: { description: 'Liveness and version of the service; no credential needed.' },
  healthIdentity: {
    description:
      'Proves the server holds the expected secrets without revealing them: HMACs of your fresh nonce under the JWT and API-key lookup secrets.',
    fields: { nonce: ['A fresh random string (1-128 characters) per request.', 'c9f1d2e3a4b5'] },
  },
  verifyNaturalLanguage: {
    description:
      'A math question in plain language, translated by an LLM and then checked. Never VERIFIED (the translation is not a proof); use /verify/math for a deterministic proof.',
    example: { query: 'Is the derivative of x^2 equal to 2x?' },
    fields: {
      query: ['The question, in plain language (at most 10,000 characters).', 'Is the derivative of x^2 equal to 2x?'],
      provider,
    },
  },
  verifyMath: {
    description:
      'Checks a math expression or equation deterministically. VERIFIED with a `proof_ref` only when the identity is proven (canonical form); a false claim or one that cannot be decided is UNVERIFIABLE or BLOCKED.',
    example: { expression: '(x+1)^2 = x^2 + 2*x + 1' },
    fields: {
      expression: ['The expression or equation to check (`^` or `**` for powers).', '(x+1)^2 = x^2 + 2*x + 1'],
      context: [
        'Optional domain and per-variable assumptions the proof may use.',
        { domain: 'real', assumptions: { x: 'positive' } },
      ],
      tolerance: [
        'For a numeric claim: the accepted absolute error (a number or numeric string; at most max(0.01, 1% of the value)).',
        '0.01',
      ],
      precision_mode: ['Arithmetic for numeric claims: `decimal` (exact, default) or `float`.', 'decimal'],
    },
  },
  verifyLogic: {
    description:
      'Solves logic constraints (S-expression DSL or plain language) with Z3: SAT with a model, UNSAT, or ERROR. A policy block answers 403 BLOCKED.',
    example: { query: '(AND (GT x 5) (LT x 10))' },
    fields: {
      query: ['Constraints in the DSL (AND, OR, NOT, GT, LT, EQ, ...) or plain language.', '(AND (GT x 5) (LT x 10))'],
      provider,
    },
  },
  verifyCode: {
    description:
      'Security scan of source code. Proven-unsafe code is VERIFIED with `admission` BLOCKED; admit the code only when `admission` is ADMIT.',
    example: { code: 'import subprocess\nsubprocess.run(["ls", "-l"])\n', language: 'python' },
    fields: {
      code: ['The source code to scan.', 'import subprocess\nsubprocess.run(["ls", "-l"])\n'],
      language: ['Language of the code: python (default), javascript, typescript, ...', 'python'],
    },
  },
  verifySql: {
    description:
      'Parses a SQL query and checks it against the schema: injection patterns, undeclared tables, complexity. Admit it only when `admission` is ADMIT.',
    example: {
      query: 'SELECT id, email FROM users WHERE id = 1',
      schema_ddl: 'CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)',
      dialect: 'sqlite',
    },
    fields: {
      query: ['The SQL query to check.', 'SELECT id, email FROM users WHERE id = 1'],
      schema_ddl: [
        'CREATE TABLE statements the query must fit.',
        'CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)',
      ],
      dialect: ['SQL dialect: sqlite (default), postgres, mysql, mariadb, ...', 'sqlite'],
    },
  },
  verifyFact: {
    description:
      'Checks a factual claim against a context text you supply: SUPPORTED, REFUTED or INCONCLUSIVE with the evidence sentences.',
    example: { claim: 'Paris is the capital of France.', context: 'Paris is the capital and largest city of France.' },
    fields: {
      claim: ['The claim to check.', 'Paris is the capital of France.'],
      context: ['The text the claim is checked against.', 'Paris is the capital and largest city of France.'],
      provider,
    },
  },
  verifyConsensus: {
    description:
      'Runs several engines on one claim; VERIFIED only when every engine proves it. 422 when the agreement is below `min_confidence`.',
    example: { query: '2 + 2 = 4', verification_mode: 'single', min_confidence: 0.95 },
    fields: {
      query: ['The claim every engine checks.', '2 + 2 = 4'],
      verification_mode: ['`single` (one engine), `high` or `maximum` (more engines, slower).', 'single'],
      min_confidence: ['Required agreement between 0 and 1 (default 0.95).', 0.95],
    },
  },
  verifyImage: {
    description: 'Checks a claim about an uploaded image (multipart/form-data: `image` and `claim`).',
    fields: {
      claim: ['The claim about the image.', 'The image is 800 pixels wide.'],
      provider,
      image: ['PNG, JPEG, GIF or WebP file, at most 10 MiB.', 'chart.png'],
    },
  },
  verifyStats: {
    description:
      'Evaluates a statistical claim on an uploaded CSV in the sandbox. Execution alone is never a proof: success is UNVERIFIABLE with the observed result.',
    fields: {
      file: ['CSV with a header row (at most 10,000,000 bytes and 1,000,000 cells).', 'sales.csv'],
      query: ['The claim about the data.', 'mean(revenue) > 100'],
    },
  },
  verifyProcess: {
    description:
      'Checks a reasoning trace for its structure: IRAC steps (issue, rule, application, conclusion) or your own milestones.',
    example: {
      trace:
        'Issue: is the contract valid? Rule: offer and acceptance. Application: both happened by e-mail. Conclusion: it is valid.',
      mode: 'irac',
    },
    fields: {
      trace: [
        'The reasoning trace to check.',
        'Issue: is the contract valid? Rule: offer and acceptance. Application: both happened by e-mail. Conclusion: it is valid.',
      ],
      mode: ['`irac` (default) or `milestones`.', 'irac'],
      milestones: ['With mode `milestones`: the steps the trace must contain.', ['offer', 'acceptance']],
    },
  },
  verifyRag: {
    description:
      'Checks that retrieved chunks come from the document you asked about (document retrieval mismatch rate).',
    example: {
      target_document_id: 'doc-42',
      chunks: [
        { id: 'c1', metadata: { document_id: 'doc-42' } },
        { id: 'c2', metadata: { document_id: 'doc-42' } },
      ],
      max_drm_rate: '0',
    },
    fields: {
      target_document_id: ['The document the chunks must come from.', 'doc-42'],
      chunks: [
        'Retrieved chunks, each with `id` and `metadata.document_id`.',
        [{ id: 'c1', metadata: { document_id: 'doc-42' } }],
      ],
      max_drm_rate: ['Highest accepted mismatch rate as a decimal string or fraction (default "0").', '0'],
    },
  },
  verifyBatch: {
    description:
      'Submits up to 100 items (your plan may allow fewer) that run concurrently; 202 with a job to poll at GET /verify/batch/{job_id}.',
    example: {
      items: [
        { query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' },
        { query: 'SELECT 1', type: 'sql', params: { schema_ddl: 'CREATE TABLE t (id INT)' } },
      ],
    },
    fields: {
      items: [
        'The items: `query`, `type` (math, logic, code, sql, fact, natural_language) and optional `params`.',
        [{ query: '2 + 2 = 4', type: 'math' }],
      ],
    },
  },
  getBatch: {
    description: 'Status, progress and per-item results of a batch job of your organization.',
    fields: { job_id: ['Job id returned by POST /verify/batch.', 'job_6a1f3c9e2b7d4e8f'] },
  },
  vcFromDiagnostic: {
    description:
      'Converts a DiagnosticResult into a Verification Context document; the X-Issued-Here header says whether this service issued the result.',
    example: {
      query: 'SELECT id FROM users WHERE id = 1',
      verifier: 'sql',
      diagnostic: {
        status: 'UNVERIFIABLE',
        agent_message: 'not proven',
        developer_fields: { constraint_id: 'sql_verifier.sql_valid' },
        proof_ref: null,
      },
    },
    fields: {
      query: ['The original query or claim.', 'SELECT id FROM users WHERE id = 1'],
      verifier: ['The engine that produced the result.', 'sql'],
      diagnostic: [
        'The DiagnosticResult as returned by a /verify route.',
        { status: 'UNVERIFIABLE', agent_message: 'not proven', proof_ref: null },
      ],
      verifier_version: ['Version of the verifier (default the service version).', '7.3.0'],
      attestation_token: [
        'The attestation token of the result, when it has one.',
        'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ2In0.sig',
      ],
    },
  },
  vcValidate: {
    description:
      'Validates a Verification Context document against the v1.0 schema and its verdict/proof_ref invariants; gate on `valid`.',
    example: { document: VC_DOCUMENT },
    fields: VC_FIELDS,
  },
  vcResolve: {
    description:
      'Re-derives the proof_ref commitment of a document; `issued_here` says whether this service issued it (gate on it).',
    example: { document: VC_DOCUMENT },
    fields: VC_FIELDS,
  },
  registerAgent: {
    description:
      'Registers an agent and returns its agent token once; the agent then calls /agents/{id}/verify with X-Agent-Token.',
    example: {
      name: 'support-bot',
      agent_type: 'assistant',
      permissions: { allowed_tools: ['read_file'], denied_tools: ['delete_file'], allowed_domains: ['example.com'] },
      max_requests_per_hour: 100,
      max_cost_per_day: 10,
    },
    fields: {
      name: ['A name for the agent.', 'support-bot'],
      agent_type: ['autonomous, assistant (default), workflow or tool.', 'assistant'],
      description: ['What the agent does.', 'Answers customer questions.'],
      permissions: [
        'Tools it may or may not call and domains it may reach.',
        { allowed_tools: ['read_file'], denied_tools: [], allowed_domains: ['example.com'] },
      ],
      max_requests_per_hour: ['Requests per clock hour (capped by your plan).', 100],
      max_cost_per_day: ['USD per UTC day at the documented price per request.', 10],
    },
  },
  revokeAgent: { description: 'Revokes an agent: its token stops working at once.', fields: { id: agentId } },
  agentVerify: {
    description:
      'Verifies an agent action (a claim, code, SQL or a tool call); exfiltration and poisoned tool definitions are refused with 403.',
    example: {
      query: 'SELECT id FROM orders WHERE customer_id = 7',
      context: { conversation_id: 'conv-1', step_number: 1 },
      schema_ddl: 'CREATE TABLE orders (id INTEGER, customer_id INTEGER)',
    },
    fields: {
      id: agentId,
      query: ['The action or claim to verify.', 'SELECT id FROM orders WHERE customer_id = 7'],
      context: [
        'Required: `conversation_id` and `step_number` of the agent step (else 400 SVC-AGENT-CTX-001).',
        { conversation_id: 'conv-1', step_number: 1 },
      ],
      tool_schema: [
        'The tool definition the agent was given, checked for poisoning.',
        { name: 'read_file', description: 'Reads a file.' },
      ],
      provider,
      schema_ddl: [
        'For SQL queries: the CREATE TABLE statements to check against.',
        'CREATE TABLE orders (id INTEGER, customer_id INTEGER)',
      ],
    },
  },
  agentTool: {
    description: 'Evaluates a tool call before the agent executes it: allowed, denied or needs approval.',
    example: { arguments: { path: 'reports/2026-q3.txt' } },
    fields: { id: agentId, tool: toolName, arguments: ['The arguments of the call.', { path: 'reports/2026-q3.txt' }] },
  },
  agentActivity: {
    description: "The agent's audit log, most recent first.",
    fields: {
      id: agentId,
      limit: ['Entries per page (1-200, default 50).', 50],
      cursor: ['`next_cursor` of the previous page.', 'act_0123456789abcdef0123456789ab'],
    },
  },
  agentBudget: { description: "The agent's remaining requests this hour and spend today.", fields: { id: agentId } },
  approveToolDefinition: {
    description: 'Approves a changed tool definition (the hash from the 409 answer) so the agent may use it again.',
    example: { definition_hash: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
    fields: {
      id: agentId,
      tool: toolName,
      definition_hash: [
        'The `sha256:<hex>` hash of the definition, from the 409 answer.',
        'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      ],
    },
  },
  listAgentApprovals: {
    description:
      "The agent's approvals of tool calls, newest first, filtered by state (owners and admins of its organization; docs/approvals.md).",
    fields: {
      id: agentId,
      state: ['Only approvals in this state: pending, approved, denied or expired.', 'pending'],
      limit: ['Approvals per page (1-100, default 50).', 50],
      cursor: ['`next_cursor` of the previous page.', '41'],
    },
  },
  getAgentApproval: {
    description:
      'One approval of a tool call; with ?wait=<seconds> the answer waits until it is decided (long poll, at most 60 s). The agent (X-Agent-Token) or an owner or admin.',
    fields: {
      id: agentId,
      approval_id: approvalId,
      wait: ['Seconds to wait for a decision (0-60, default 0: answer at once).', 30],
    },
  },
  decideAgentApproval: {
    description:
      "Approves or denies a pending tool call, once: audited, attested, and shown in the agent's activity (owners and admins).",
    example: { decision: 'approve', reason: 'Report checked; send it.' },
    fields: {
      id: agentId,
      approval_id: approvalId,
      decision: ['approve or deny.', 'approve'],
      reason: [
        'Why (1-1000 characters): kept in the approval, the audit entry and the activity feed.',
        'Report checked; send it.',
      ],
    },
  },
  reportActionOutcome: {
    description:
      'Reports what an admitted or approved tool call did, once; an action that never reports is flagged after SVC_ACTION_OUTCOME_TIMEOUT.',
    example: { status: 'succeeded', detail: 'Message 42 sent.' },
    fields: {
      id: agentId,
      action_id: ['Action id from the tool call answer (`action_id`).', 'acn_0123456789abcdef0123456789abcdef'],
      status: ['succeeded, failed or error.', 'succeeded'],
      detail: ['What happened (at most 2000 characters).', 'Message 42 sent.'],
    },
  },
  jwks: { description: 'Public keys (JWKS) to check attestation tokens offline.' },
  getAttestation: {
    description: 'An attestation issued to your organization, re-verified now.',
    fields: { id: ['Attestation id from a VERIFIED result.', 'att_1d2e3f4a5b6c7d8e'] },
  },
  verifyAttestation: {
    description: 'Verifies an attestation token (signature, issuer, expiry); gate on `valid`.',
    example: { token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6InN2Yy0xIn0.eyJzdGF0dXMiOiJWRVJJRklFRCJ9.c2ln' },
    fields: {
      token: [
        'The attestation JWT from a verification result.',
        'eyJhbGciOiJFUzI1NiIsImtpZCI6InN2Yy0xIn0.eyJzdGF0dXMiOiJWRVJJRklFRCJ9.c2ln',
      ],
    },
  },
  metrics: { description: 'Global request and verdict counters (platform operators only).' },
  metricsPrometheus: { description: 'The same counters in the Prometheus text format (platform operators only).' },
  orgMetrics: { description: "Your organization's request and verdict counters.", fields: { org_id: orgId } },
  logs: {
    description: "Your organization's verification log, most recent first.",
    fields: { limit: pageLimit, status: logStatus, cursor: pageCursor },
  },
  signup: {
    description:
      'Creates an organization and its owner and returns an access token (1 hour). A second signup with the same e-mail is 409: sign in instead.',
    example: { email: 'dev@example.com', password: 'correct horse battery staple', organization_name: 'Example Ltd' },
    fields: {
      email: ['Your e-mail address (the sign-in name).', 'dev@example.com'],
      password: ['At least 12 characters.', 'correct horse battery staple'],
      organization_name: ['Name of the new organization.', 'Example Ltd'],
    },
  },
  signin: {
    description: 'Signs in and returns an access token (1 hour) for the account routes (/auth/*, /audit/*).',
    example: { email: 'dev@example.com', password: 'correct horse battery staple' },
    fields: {
      email: ['Your e-mail address.', 'dev@example.com'],
      password: ['Your password.', 'correct horse battery staple'],
    },
  },
  me: { description: 'The signed-in user and organization.' },
  createApiKey: {
    description:
      'Creates an API key; the secret is returned once. Give it only the scopes it needs (verify:read for the /verify routes).',
    example: { name: 'ci', scopes: ['verify:read'], expires_in_days: 90 },
    fields: {
      name: ['A name to recognise the key by.', 'ci'],
      scopes: [
        'verify:read, agent:write, attestation:read or admin:all (default: what your role allows).',
        ['verify:read'],
      ],
      expires_in_days: ['Days until the key expires (1-3650; default never).', 90],
    },
  },
  listApiKeys: { description: "Your organization's active keys (previews only, never the secrets)." },
  revokeApiKey: {
    description: 'Revokes an API key at once.',
    fields: { key_id: ['Key id from POST /auth/api-keys or GET /auth/api-keys.', 'key_0b1c2d3e4f5a6b7c'] },
  },
  auditLogs: {
    description: "Your organization's audit entries, most recent first.",
    fields: { limit: pageLimit, status: logStatus, cursor: pageCursor },
  },
  auditLog: {
    description: 'One audit entry of your organization, with its hash-chain fields.',
    fields: { log_id: logId },
  },
  auditExport: { description: 'The latest 1,000 audit entries as CSV.' },
  complianceCsv: { description: 'The audit trail as CSV (admin scope).', fields: { org_id: orgId } },
  complianceVerify: { description: "Checks one audit entry's hash chain and signature.", fields: { log_id: logId } },
  soc2Report: { description: 'A SOC 2 evidence report for your organization.', fields: { org_id: orgId } },
  threatSummary: { description: 'Blocked requests by kind for your organization.', fields: { org_id: orgId } },
  rotateApiKey: {
    description:
      'Replaces an API key by a new one with the same name and scopes; the new secret is returned once and the old key stops working.',
    example: { key_id: 'key_0b1c2d3e4f5a6b7c' },
    fields: { key_id: ['Id of the key to rotate.', 'key_0b1c2d3e4f5a6b7c'] },
  },
  badgeVerified: {
    description: 'An SVG badge "verified" or "failed".',
    fields: { status: ['`verified` or `failed`.', 'verified'], label: badgeLabel },
  },
  badgeStatus: {
    description: 'An SVG badge for a verdict status.',
    fields: {
      status: ['A verdict status: VERIFIED, FAILED, CORRECTED, BLOCKED, PENDING, ERROR, UNVERIFIABLE.', 'VERIFIED'],
      label: badgeLabel,
    },
  },
  badgeAttestation: {
    description: 'An SVG badge for an attestation: its verdict, re-verified on each request.',
    fields: { id: ['Attestation id.', 'att_1d2e3f4a5b6c7d8e'] },
  },
  badgeEngine: {
    description: 'An SVG badge naming an engine.',
    fields: { engine: ['Engine name: math, logic, code, sql, fact, ...', 'math'] },
  },
  badgeCustom: {
    description: 'An SVG badge with your own text and colours.',
    fields: {
      label: badgeLabel,
      message: ['Right-hand text.', 'passing'],
      color: ['Right-hand colour: a name or hex.', 'green'],
      labelColor: ['Left-hand colour: a name or hex.', 'grey'],
      logo: ['A named logo.', 'github'],
    },
  },
  secretScanning: {
    // A key's shape only: its checksum is wrong, so no key of ours can ever match it (scanForLiveKeys ignores it).
    description:
      'Receives signed reports of leaked API keys from the scanning partner and revokes them (partner credential only).',
    example: [
      {
        token: 'svc_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123',
        type: 'svc_api_key',
        url: 'https://example.com/acme/app/commit/1a2b3c',
        source: 'content',
      },
    ],
    fields: {
      token: ['The leaked key as found.', 'svc_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123'],
      type: ['The token type the partner matched.', 'svc_api_key'],
      url: ['Where it was found.', 'https://example.com/acme/app/commit/1a2b3c'],
      source: ['Kind of place it was found in.', 'content'],
    },
  },
  a2aIntercept: {
    description:
      'Checks a message between two agents before it is delivered; only `verified` is admissible. The key (X-API-Key from SVC_A2A_API_KEYS) selects the sender.',
    example: {
      sender_agent_id: 'billing-agent',
      receiver_agent_id: 'payments-agent',
      payload_type: 'financial_transaction',
      payload: { amount: '125.00', currency: 'EUR', to: 'DE89370400440532013000' },
    },
    fields: {
      sender_agent_id: ['The sending agent (the key decides; a different value is ignored).', 'billing-agent'],
      receiver_agent_id: ['The receiving agent.', 'payments-agent'],
      payload_type: [
        'financial_transaction, code_execution, logic_assertion, general or data_query.',
        'financial_transaction',
      ],
      payload: ['The message content.', { amount: '125.00', currency: 'EUR' }],
      engine_timeout_seconds: ['Engine budget in seconds (> 0, at most 60, default 5).', 5],
    },
  },
  a2aTrace: {
    description: "One of the calling agent's verdicts by its audit trace id.",
    fields: { trace: ['`audit_trace_id` of a verdict.', 'a2a_0123456789abcdef0123456789abcdef'] },
  },
};
