// Per-organization security counters (rate-limit rejections, authorization denials after
// authentication), one document per organization, kind and UTC day, updated with an atomic
// $inc so every API process contributes. They feed the threat summary; they hold counts only
// (no paths, keys or request data).
import type { Collection } from 'mongodb';
import { Store } from './store.js';

export type OrgEventKind = 'rate_limited' | 'forbidden';
export const ORG_EVENT_KINDS: readonly OrgEventKind[] = ['rate_limited', 'forbidden'];

interface OrgEventDoc {
  _id: string;
  org_id: string;
  kind: OrgEventKind;
  day: string; // YYYY-MM-DD (UTC)
  count: number;
}

Store.registerIndexes(async (store) => {
  await store.collection('org_events').createIndex({ org_id: 1, day: 1 });
});

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

function events(store: Store): Collection<OrgEventDoc> {
  return store.collection<OrgEventDoc>('org_events');
}

export async function recordOrgEvent(store: Store, orgId: string, kind: OrgEventKind, now = new Date()): Promise<void> {
  const day = dayOf(now);
  await events(store).updateOne(
    { _id: `${orgId}:${kind}:${day}` },
    { $inc: { count: 1 }, $setOnInsert: { org_id: orgId, kind, day } },
    { upsert: true },
  );
}

/** Counts per kind over the last `days` UTC days (today included). */
export async function orgEventCounts(store: Store, orgId: string, days: number, now = new Date()): Promise<Record<OrgEventKind, number>> {
  const since = dayOf(new Date(now.getTime() - (days - 1) * 86_400_000));
  // One point lookup per (kind, day): a filter on other fields would read the whole collection on FerretDB.
  const ids: string[] = [];
  for (let i = 0; i < days; i++) {
    const day = dayOf(new Date(now.getTime() - i * 86_400_000));
    if (day < since) break;
    for (const kind of ORG_EVENT_KINDS) ids.push(`${orgId}:${kind}:${day}`);
  }
  const docs = await Promise.all(ids.map((_id) => events(store).findOne({ _id })));
  const out = Object.fromEntries(ORG_EVENT_KINDS.map((k) => [k, 0])) as Record<OrgEventKind, number>;
  for (const d of docs) if (d && d.kind in out) out[d.kind] += d.count;
  return out;
}
