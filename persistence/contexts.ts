// Verification Context documents issued here (persistence/README.md; the rules in
// core/verification-context-issuance.ts): `verification_contexts_issued {_id: commitment}`,
// written once, read by `_id`.
import { MongoServerError } from 'mongodb';
import type { Store } from '../core/store.js';

export interface IssuedContextRecord {
  _id: string; // the document's commitment (context.evidence.proof_ref)
  org_id: string;
  /** The attestation (jti) and the retained proof that back the verdict. */
  attestation_id: string;
  proof_ref: string;
  verifier: string;
  created_at: Date;
}

const issued = (store: Store) => store.collection<IssuedContextRecord>('verification_contexts_issued');

/** Insert of `{_id: commitment}`; already recorded (the same document issued again) is success. */
export async function recordIssuedContext(store: Store, doc: IssuedContextRecord): Promise<void> {
  try {
    await issued(store).insertOne(doc);
  } catch (err) {
    if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
  }
}

/** `{_id: commitment}` point lookup. */
export async function isContextIssued(store: Store, commitment: string): Promise<boolean> {
  return (await issued(store).findOne({ _id: commitment }, { projection: { _id: 1 } })) !== null;
}
