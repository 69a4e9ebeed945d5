// Black-box rows of issue 28 items 9 and 10 on the agent-to-agent gateway (docs/a2a-gateway.md):
// the body is read with the strict JSON reader (duplicate keys refused, numbers kept exact),
// money is checked in exact decimals at the currency's exponent, and a logic_assertion is
// verified only when the facts in the payload entail it.
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, post, stackEnv } from './helpers.js';

let KEY: string;
const key = () => ({ 'x-api-key': KEY });
const envelope = (payload_type: string, payload: string, extra = '') =>
  `{"sender_agent_id":"s","receiver_agent_id":"r","payload_type":"${payload_type}"${extra},"payload":${payload}}`;
const raw = async (body: string) => {
  const res = await fetch(`${apiUrl()}/a2a/intercept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...key() },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
};
const msg = (payload_type: string, payload: Record<string, unknown>) => ({
  receiver_agent_id: 'r',
  payload_type,
  payload,
  engine_timeout_seconds: 20,
});
const intercept = (payload_type: string, payload: Record<string, unknown>) =>
  post('/a2a/intercept', msg(payload_type, payload), key());

beforeAll(() => {
  const keys = JSON.parse(stackEnv().SVC_A2A_API_KEYS as string) as Record<string, string>;
  KEY = Object.keys(keys)[0] as string;
});

describe('gateway: strict JSON and exact money (issue 28 item 9)', () => {
  it('duplicate amount keys are refused (400 duplicate_key), never "last one wins"', async () => {
    const r = await raw(
      envelope(
        'financial_transaction',
        '{"amount":"1000.00","currency":"USD","balance_before":"1000.00","balance_after":"990.00","amount":"10.00"}',
      ),
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'duplicate_key', path: '$.payload.amount' });
    expect(r.body.detail).toBe('Invalid JSON body (duplicate_key) at $.payload.amount: duplicate key "amount"');
    // The same key written with an escape is the same key.
    const esc = await raw(
      envelope(
        'financial_transaction',
        '{"amount":"1000.00","currency":"USD","balance_before":"1000.00","balance_after":"990.00","\\u0061mount":"10.00"}',
      ),
    );
    expect(esc.status).toBe(400);
    expect(esc.body.code).toBe('duplicate_key');
    // Envelope keys too.
    const env = await raw(
      `{"receiver_agent_id":"r","payload_type":"general","payload_type":"financial_transaction","payload":{}}`,
    );
    expect(env.status).toBe(400);
    expect(env.body.code).toBe('duplicate_key');
  });

  it('20000000000000000 - 10000000000000001 with balance 10000000000000000: numbers beyond 2^53 are refused, strings are exact', async () => {
    const r = await raw(
      envelope(
        'financial_transaction',
        '{"amount":10000000000000001,"currency":"JPY","balance_before":20000000000000000,"balance_after":10000000000000000}',
      ),
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'unsafe_integer', path: '$.payload.amount' });
    const s = await intercept('financial_transaction', {
      amount: '10000000000000001',
      currency: 'JPY',
      balance_before: '20000000000000000',
      balance_after: '10000000000000000',
    });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ status: 'blocked', admissible: false, engine_used: 'decimal' });
    expect(s.body.reason).toBe(
      'balance_mismatch: balance_after must equal balance_before - amount - fee = 9999999999999999 JPY',
    );
    const ok = await intercept('financial_transaction', {
      amount: '10000000000000001',
      currency: 'JPY',
      balance_before: '20000000000000000',
      balance_after: '9999999999999999',
    });
    expect(ok.body).toMatchObject({ status: 'verified', admissible: true });
  });

  it('an amount with 16 decimals is refused, not rounded: as a JSON number (400 inexact_number) or as a string (blocked)', async () => {
    const n = await raw(
      envelope(
        'financial_transaction',
        '{"amount":10.0000000000000001,"currency":"USD","balance_before":100,"balance_after":90}',
      ),
    );
    expect(n.status).toBe(400);
    expect(n.body).toMatchObject({ code: 'inexact_number', path: '$.payload.amount' });
    expect(n.body.detail).toMatch(/^Invalid JSON body \(inexact_number\) at \$\.payload\.amount: /);
    const s = await intercept('financial_transaction', {
      amount: '10.0000000000000001',
      currency: 'USD',
      balance_before: '100',
      balance_after: '90',
    });
    expect(s.body).toMatchObject({ status: 'blocked', admissible: false });
    expect(s.body.reason).toBe('precision_exceeds_minor_unit: amount has 16 decimal places; USD allows 2');
    // Trailing zeros beyond the exponent are refused as well: the amount is written at the currency's exponent.
    const z = await intercept('financial_transaction', {
      amount: '10.0000000000000000',
      currency: 'USD',
      balance_before: '100.00',
      balance_after: '90.00',
    });
    expect(z.body).toMatchObject({ status: 'blocked' });
    expect(z.body.reason).toMatch(/^precision_exceeds_minor_unit: amount has 16 decimal places; USD allows 2/);
    const jpy = await intercept('financial_transaction', {
      amount: '10.0',
      currency: 'JPY',
      balance_before: '100',
      balance_after: '90',
    });
    expect(jpy.body.reason).toMatch(/^precision_exceeds_minor_unit: amount has 1 decimal places; JPY allows 0/);
  });

  it('numbers written exactly as their shortest decimal still work; a body that is not strict JSON is 400', async () => {
    const ok = await raw(
      envelope(
        'financial_transaction',
        '{"amount":0.1,"fee":0.2,"currency":"EUR","balance_before":0.30,"balance_after":0}',
        ',"engine_timeout_seconds":5.0',
      ),
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'verified', admissible: true });
    const lone = await raw(envelope('general', '{"t":"\\ud800"}'));
    expect(lone.status).toBe(400);
    expect(lone.body.code).toBe('lone_surrogate');
    const deep = await raw(envelope('general', `${'['.repeat(70)}${']'.repeat(70)}`));
    expect(deep.status).toBe(400);
    expect(deep.body.code).toBe('max_depth');
  });
});

describe('gateway: logic_assertion is verified only when entailed by the facts (issue 28 item 10)', () => {
  const Q = '(AND (GT amount 1000000) (EQ sanctions_check_passed 1))';

  it('the satisfiable assertion with no facts is not verified (Z3 choosing the values proves nothing)', async () => {
    const r = await intercept('logic_assertion', { query: Q });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'unverifiable', admissible: false, engine_used: 'z3' });
    expect(r.body.reason).toMatch(/^not_entailed: /);
    expect(r.body.attestation_jwt).toBeNull();
  });

  it('facts that entail it: verified, admissible, signed', async () => {
    const r = await intercept('logic_assertion', { query: Q, facts: { amount: 2500000, sanctions_check_passed: 1 } });
    expect(r.body, JSON.stringify(r.body)).toMatchObject({ status: 'verified', admissible: true, engine_used: 'z3' });
    expect(r.body.reason).toMatch(/^entailed: /);
    expect(typeof r.body.attestation_jwt).toBe('string');
  });

  it('facts that refute it: blocked; facts that leave a variable open: unverifiable', async () => {
    const refuted = await intercept('logic_assertion', {
      query: Q,
      facts: { amount: 2500000, sanctions_check_passed: 0 },
    });
    expect(refuted.body).toMatchObject({ status: 'blocked', admissible: false });
    expect(refuted.body.reason).toMatch(/^assertion_refuted: /);
    const open = await intercept('logic_assertion', { query: Q, facts: { amount: 2500000 } });
    expect(open.body).toMatchObject({ status: 'unverifiable', admissible: false });
    expect(open.body.reason).toMatch(/^not_entailed: /);
  });

  it('facts of the wrong sort or shape are unverifiable (invalid_facts), never a vacuous entailment', async () => {
    for (const facts of [
      { amount: 2500000.5, sanctions_check_passed: 1 },
      { amount: '2500000', sanctions_check_passed: true },
      [1, 2],
      'x',
    ]) {
      const r = await intercept('logic_assertion', { query: Q, facts });
      expect(r.body, JSON.stringify(facts)).toMatchObject({ status: 'unverifiable', admissible: false });
      expect(r.body.reason, JSON.stringify(facts)).toMatch(/^invalid_facts: /);
    }
  });
});
