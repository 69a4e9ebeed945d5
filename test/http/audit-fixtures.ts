// Helpers shared by the audit black-box files (audit.test.ts, audit.serial.test.ts and the chain-mechanics files).
import { afterAll, expect } from 'vitest';
import type { Db } from 'mongodb';
import { Store } from '../../core/store.js';
import { AuditLog } from '../../persistence/audit.js';
import { db, post, stackEnv, type Member } from './helpers.js';
import type { AuditEntry, AuditEntryFields } from '../../core/audit-chain.js';

export const key = (k: string) => ({ 'x-api-key': k });
export const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
export const CROSS_ORG = "Cannot access another organization's data";
export const INSUFFICIENT = 'Insufficient permissions for this operation';

export async function pool<T>(count: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

/** RFC 4180 reader (quoted cells, doubled quotes, CRLF rows), enough to check our exports. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

export async function chainOf(orgId: string) {
  return (await db())
    .collection('audit_logs')
    .find({ organization_id: orgId })
    .sort({ seq: 1 })
    .toArray() as unknown as Promise<Array<AuditEntry & { _id: string; seq: number }>>;
}

export async function verifyMath(t: Member, expression: string) {
  const res = await post('/verify/math', { expression }, key(t.key));
  expect(res.status, res.text).toBe(200);
  return res;
}

export const expressionFor = (i: number) =>
  i % 10 === 0 ? '8/2(2+2)' : i % 10 === 1 ? `${i} * 3` : `(v+${i})^2 = v^2 + ${2 * i}*v + ${i * i}`;

/**
 * The fields of a VERIFIED math entry `claim <i>` of `orgId` whose workflow id is `wf-<tag>-<i>`:
 * what the chain-mechanics files (append retry, head moves, heal) append directly to an AuditLog.
 */
export function verifiedClaimFields(orgId: string, i: number, tag: string, timestamp = new Date()): AuditEntryFields {
  return {
    organization_id: orgId,
    user_id: null,
    query: `claim ${i}`,
    result: {
      status: 'VERIFIED',
      admission: null,
      proof_ref: null,
      attestation_id: null,
      key_id: null,
      workflow_id: `wf-${tag}-${i}`,
      request_digest: null,
    },
    verified: true,
    domain: 'math',
    timestamp,
    raw_llm_output: null,
  };
}

/**
 * `real` seen through a proxy that calls `before` with every database command it sends (the
 * driver's `db.command`, which carries every insert of the audit chain) before sending it; a
 * `before` that throws makes the command fail as the store would.
 */
export function storeWithCommandHook(real: Store, before: (cmd: Record<string, unknown>) => void): Store {
  const hooked = (d: Db) =>
    new Proxy(d, {
      get(target, prop) {
        if (prop === 'command')
          return async (cmd: Record<string, unknown>, ...rest: unknown[]) => {
            before(cmd);
            return (target.command as (...a: unknown[]) => Promise<unknown>).call(target, cmd, ...rest);
          };
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  return new Proxy(real, {
    get(target, prop) {
      if (prop === 'db') return hooked(target.db);
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * AuditLogs on store clients of their own, each another "process" writing the stack's chain
 * (the chain-mechanics files: audit-s15-heal, audit-s15-contention, audit-s16-claim-race); the
 * clients are closed after the file. Call once at the top of a file.
 */
export function auditProcesses(): () => AuditLog {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close().catch(() => undefined);
  });
  return () => {
    const store = Store.lazy(stackEnv().MONGODB_URI as string);
    stores.push(store);
    return new AuditLog(store);
  };
}
