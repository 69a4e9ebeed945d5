// The dev stack's platform operator (issue 27, point 5): without one, nobody can read the
// encrypted workflow payloads in the Temporal UI (the codec server answers operators only). `npm
// run dev` generates its e-mail, user id and password once into .env.local, puts the id into
// SVC_METRICS_OPERATOR_USER_IDS of the API and the codec server, seeds the account into the
// store (idempotent) and prints the sign-in. Dev profile only: test and production stacks name
// their operators themselves.
import { MongoClient } from 'mongodb';
import { hashPassword } from '../core/passwords.js';
import { Store } from '../core/store.js';
import { OrgDirectory } from '../persistence/accounts.js';

export const DEV_OPERATOR_EMAIL = 'operator@svc.local';
export const DEV_OPERATOR_ORG_ID = 'org_dev_operators';

export interface DevOperator {
  userId: string;
  email: string;
  password: string;
}

export function devOperatorFrom(secrets: Record<string, string>): DevOperator | null {
  const userId = secrets.SVC_DEV_OPERATOR_USER_ID;
  const password = secrets.SVC_DEV_OPERATOR_PASSWORD;
  return userId && password ? { userId, email: DEV_OPERATOR_EMAIL, password } : null;
}

/** SVC_METRICS_OPERATOR_USER_IDS with the dev operator added (the caller's own list kept). */
export function withDevOperator(ids: string | undefined, op: DevOperator): string {
  const list = (ids ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return [...new Set([...list, op.userId])].join(',');
}

/** Creates the operator's organization and user when missing; an existing account is left as it is. */
export async function seedDevOperator(mongodbUri: string, op: DevOperator): Promise<'created' | 'exists'> {
  const client = new MongoClient(mongodbUri, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const db = client.db();
    if (await db.collection('users').findOne({ _id: op.userId as never })) return 'exists';
    const now = new Date();
    await db
      .collection('organizations')
      .updateOne(
        { _id: DEV_OPERATOR_ORG_ID as never },
        { $setOnInsert: { name: 'Dev operators', plan: 'enterprise', active: true, created_at: now } },
        { upsert: true },
      );
    await db.collection('users').insertOne({
      _id: op.userId as never,
      email: op.email,
      email_lower: op.email.toLowerCase(),
      password_hash: await hashPassword(op.password),
      org_id: DEV_OPERATOR_ORG_ID,
      role: 'owner',
      active: true,
      created_at: now,
    });
    // What the service writes for a user (persistence/accounts.ts): the sign-in pointer and the organization's directory entry.
    await db
      .collection('user_emails')
      .insertOne({ _id: op.email.toLowerCase() as never, user_id: op.userId })
      .catch((err: { code?: number }) => {
        if (err?.code !== 11000) throw err;
      });
    const store = Store.lazy(mongodbUri);
    try {
      await new OrgDirectory(store, 'users').add(DEV_OPERATOR_ORG_ID, op.userId);
    } finally {
      await store.close();
    }
    return 'created';
  } finally {
    await client.close();
  }
}
