// The store command capture's classifier (issue 22): what FerretDB/SQLite can answer by key.
import { describe, expect, it } from 'vitest';
import { classify, classifyFilter, violations, type Captured } from '../store-commands/classify.js';
// @ts-expect-error plain JavaScript preload without type declarations
import { describeCommand, shapeOf } from '../store-commands/capture.mjs';

const cmd = (c: Partial<Captured>): Captured => ({ t: 0, site: 'x.ts:1', cmd: 'find', coll: 'audit_logs', ...c });

describe('classifyFilter', () => {
  it('only {_id: scalar} alone is a point lookup', () => {
    expect(classifyFilter({ _id: 'string' })).toBe('id_point');
    expect(classifyFilter({ _id: { $eq: 'string' } })).toBe('id_point');
    expect(classifyFilter({ _id: 'string', organization_id: 'string' })).toBe('id_point_plus');
    expect(classifyFilter({ _id: { $in: ['string'] } })).toBe('id_in');
    expect(classifyFilter({ _id: { $gte: 'string', $lt: 'string' } })).toBe('id_range');
    expect(classifyFilter({ organization_id: 'string', seq: { $lt: 'number' } })).toBe('field_filter');
    expect(classifyFilter({})).toBe('all');
  });
});

describe('classify', () => {
  it('flags sorts, counts and upserts, and counts each statement of an update', () => {
    expect(classify(cmd({ filter: { organization_id: 'string' }, sort: { seq: -1 } }))[0]).toMatchObject({
      cls: 'field_filter',
      sorted: true,
      scansOnSqlite: true,
    });
    expect(
      classify(
        cmd({
          cmd: 'aggregate',
          pipeline: [{ $match: { org_id: 'string' } }, { $group: { _id: 'number', n: { $sum: 'number' } } }],
        }),
      )[0],
    ).toMatchObject({ cls: 'count', scansOnSqlite: true });
    const ops = classify(
      cmd({
        cmd: 'update',
        coll: 'proofs',
        ops: [{ filter: { _id: 'string' }, upsert: true }, { filter: { _id: 'string', status: 'string' } }],
      }),
    );
    expect(ops.map((o) => [o.cls, o.upsert, o.scansOnSqlite])).toEqual([
      ['id_point', true, false],
      ['id_point_plus', false, true],
    ]);
    expect(classify(cmd({ cmd: 'insert', coll: 'proofs' }))[0]).toMatchObject({ cls: 'insert', scansOnSqlite: false });
  });

  it('reports reads of growing collections without a key, not of bounded ones', () => {
    const ops = [
      ...classify(cmd({ coll: 'batch_slots', filter: { state: 'string' }, sort: { _id: 1 } })),
      ...classify(cmd({ coll: 'attestations', filter: { _id: 'string', org_id: 'string' } })),
      ...classify(cmd({ coll: 'attestations', filter: { _id: 'string' } })),
    ];
    expect(violations(ops).map((o) => o.coll)).toEqual(['attestations']);
  });

  // Session 17: FerretDB 1.24/SQLite pushes `_id` equality down only for a string or an ObjectId.
  it('counts {_id: <number>} as a whole-table read, a violation even on a bounded collection', () => {
    expect(classifyFilter({ _id: 'objectid' })).toBe('id_point');
    expect(classifyFilter({ _id: 'number' })).toBe('id_number');
    expect(classifyFilter({ _id: { $eq: 'number' } })).toBe('id_number');
    expect(classifyFilter({ _id: 'int32' })).toBe('id_number');
    expect(classifyFilter({ _id: 'number', state: 'string' })).toBe('id_point_plus');
    const ops = [
      ...classify(cmd({ coll: 'batch_slots', filter: { _id: 'number' } })),
      ...classify(cmd({ coll: 'batch_slots', filter: { _id: 'string' } })),
      ...classify(cmd({ cmd: 'update', coll: 'batch_slot_queue', ops: [{ filter: { _id: 'number' } }] })),
    ];
    expect(ops.map((o) => [o.cls, o.scansOnSqlite])).toEqual([
      ['id_number', true],
      ['id_point', false],
      ['id_number', true],
    ]);
    expect(violations(ops).map((o) => o.coll)).toEqual(['batch_slots', 'batch_slot_queue']);
  });
});

describe('capture shapes', () => {
  it('keeps operators and field names, never values', () => {
    const shape = shapeOf({ _id: 'svc_live_secret', n: 3, at: new Date(), tags: ['a', 'b'], q: { $in: ['x'] } });
    expect(shape).toEqual({ _id: 'string', n: 'number', at: 'date', tags: ['string', '…2'], q: { $in: ['string'] } });
    expect(
      JSON.stringify(
        describeCommand('update', {
          update: 'keys',
          updates: [{ q: { _id: 'k1', token: 'hunter2' }, u: { $set: { secret: 'x' } }, upsert: true }],
        }),
      ),
    ).not.toMatch(/hunter2|k1|"x"/);
  });
});
