// Issue 28 item 11: the loser of a concurrent first upsert (E11000) retries as an update.
import { describe, expect, it } from 'vitest';
import { MongoServerError } from 'mongodb';
import { upsertRetryingDuplicate } from '../../core/agents.js';

const duplicate = () =>
  new MongoServerError({ message: 'E11000 duplicate key error collection: svc.agent_usage', code: 11000 });

describe('upsertRetryingDuplicate', () => {
  it('retries the upsert a duplicate key refused and returns its answer', async () => {
    let calls = 0;
    const r = await upsertRetryingDuplicate(async () => {
      calls++;
      if (calls === 1) throw duplicate();
      return { requests: 2 };
    });
    expect(r).toEqual({ requests: 2 });
    expect(calls).toBe(2);
  });

  it('passes any other error on at once, and gives up after its attempts', async () => {
    let calls = 0;
    await expect(
      upsertRetryingDuplicate(async () => {
        calls++;
        throw new MongoServerError({ message: 'not primary', code: 10107 });
      }),
    ).rejects.toThrow('not primary');
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      upsertRetryingDuplicate(async () => {
        calls++;
        throw duplicate();
      }, 3),
    ).rejects.toThrow(/E11000/);
    expect(calls).toBe(3);
  });
});
