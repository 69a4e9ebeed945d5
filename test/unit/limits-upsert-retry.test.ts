// persistence/limits.ts `upsertById`: a counter upsert that loses the race to insert a new `_id`
// (E11000) is run again, as an update of the document the winner inserted; any other error, or a
// third duplicate in a row, is the caller's (the limiter then fails closed with 503).
import { describe, expect, it } from 'vitest';
import { MongoServerError } from 'mongodb';
import { upsertById } from '../../persistence/limits.js';

const dup = () => new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 });

describe('upsertById', () => {
  it('runs the upsert again after a duplicate key and returns its answer', async () => {
    let calls = 0;
    const out = await upsertById(async () => {
      calls++;
      if (calls === 1) throw dup();
      return 7;
    });
    expect(out).toBe(7);
    expect(calls).toBe(2);
  });

  it('does not retry another error', async () => {
    let calls = 0;
    await expect(
      upsertById(async () => {
        calls++;
        throw new MongoServerError({ message: 'not primary', code: 10107 });
      }),
    ).rejects.toThrow('not primary');
    expect(calls).toBe(1);
  });

  it('gives up after three duplicates in a row', async () => {
    let calls = 0;
    await expect(
      upsertById(async () => {
        calls++;
        throw dup();
      }),
    ).rejects.toThrow('E11000');
    expect(calls).toBe(3);
  });
});
