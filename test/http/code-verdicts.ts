// The two verdicts the code-scan black-box files assert, written once: a snippet blocked by a
// critical finding on a given line, and a snippet admitted as safe.
import { expect } from 'vitest';

type Res = { status: number; body: Record<string, unknown> & { developer_fields?: { issues?: unknown[] } } };

/** VERIFIED unsafe, not admitted, with a critical finding of `type` on `line` (and a matching description). */
export function expectBlockedAt(res: Res, line: number, type: string, description?: RegExp): void {
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: 'VERIFIED',
    admission: 'BLOCKED',
    developer_fields: { constraint_id: 'code_verifier.code_unsafe', is_valid: false },
  });
  expect(res.body.developer_fields?.issues).toContainEqual(
    expect.objectContaining({
      severity: 'critical',
      line_number: line,
      type,
      ...(description ? { description: expect.stringMatching(description) } : {}),
    }),
  );
}

/** VERIFIED safe and admitted. */
export function expectAdmitted(res: Res): void {
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: 'VERIFIED',
    admission: 'ADMIT',
    developer_fields: { constraint_id: 'code_verifier.code_safe', is_valid: true },
  });
}
