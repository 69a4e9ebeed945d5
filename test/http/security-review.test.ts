// Black-box reproductions of the security review's holes (issue 16, items 5–12), each driven
// through the real stack (API → Temporal → worker → FerretDB). docs/security-model.md.
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { addMember, db, get, http, mintKey, newTenant, post, randomIp, type Member } from './helpers.js';

const key = (k: string) => ({ 'x-api-key': k });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const INSUFFICIENT = 'Insufficient permissions for this operation';
const LACKS_ADMIN = "API key lacks the required scope 'admin:all'.";
const WIDER = 'API key cannot rotate a key whose scopes are wider than its own.';
const IN_PROGRESS = 'This API key is already being rotated.';
const NOT_FOUND = 'API key not found.';
const MATH = { expression: '2 + 3' };

const rotate = (callerKey: string, keyId: string) => post('/admin/keys/rotate', { key_id: keyId }, key(callerKey));
const listScopes = async (token: string, id: string) =>
  ((await get('/auth/api-keys', bearer(token))).body as Array<{ id: string; scopes: string[] }>).find(
    (k) => k.id === id,
  )?.scopes;

describe('5. scopes: admin routes need admin:all on the key, no key widens its scopes', () => {
  let owner: Member;
  let member: Member;
  let adminKey: { id: string; key: string };
  let attestationKey: { id: string; key: string };
  let verifyKey: { id: string; key: string };

  beforeAll(async () => {
    owner = await newTenant();
    member = await addMember(owner.orgId, 'member');
    [adminKey, attestationKey, verifyKey] = await Promise.all([
      mintKey(owner.token, 'admin', { scopes: ['admin:all'] }),
      mintKey(owner.token, 'attestation only', { scopes: ['attestation:read'] }),
      mintKey(owner.token, 'verify only', { scopes: ['verify:read'] }),
    ]);
  });

  it('gives keys minted without scopes the widest scopes of the role: admin:all for owners, not for members', async () => {
    expect(await listScopes(owner.token, owner.keyId)).toEqual([
      'verify:read',
      'agent:write',
      'attestation:read',
      'admin:all',
    ]);
    expect(await listScopes(member.token, member.keyId)).toEqual(['verify:read', 'agent:write', 'attestation:read']);
    const res = await post('/auth/api-keys', { name: 'x', scopes: ['verify:read', 'admin:all'] }, bearer(member.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: INSUFFICIENT, code: expect.any(String), request_id: expect.any(String) });
  });

  it("refuses an attestation:read key rotating its owner's admin:all key (403), which keeps working", async () => {
    const res = await rotate(attestationKey.key, adminKey.id);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: WIDER, code: expect.any(String), request_id: expect.any(String) });
    expect((await get(`/admin/security/threats/${owner.orgId}`, key(adminKey.key))).status).toBe(200);
  });

  it("refuses a verify:read key rotating another user's key (403 lacks admin:all)", async () => {
    const target = await mintKey(member.token, 'member target', { scopes: ['verify:read'] });
    const res = await rotate(verifyKey.key, target.id);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: LACKS_ADMIN, code: expect.any(String), request_id: expect.any(String) });
    expect((await post('/verify/math', MATH, key(target.key))).status).toBe(200);
  });

  it.each([
    ['compliance CSV export', (o: Member) => `/admin/compliance/export/csv`],
    ['SOC 2 report', (o: Member) => `/admin/compliance/report/soc2/${o.orgId}`],
    ['threat summary', (o: Member) => `/admin/security/threats/${o.orgId}`],
    ['audit entry verification', () => `/admin/compliance/verify/log_x`],
  ])('refuses the %s to narrow keys of an owner (403 lacks admin:all)', async (_label, pathOf) => {
    for (const k of [attestationKey, verifyKey]) {
      const res = await get(pathOf(owner), key(k.key));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: LACKS_ADMIN, code: expect.any(String), request_id: expect.any(String) });
    }
  });

  it('lets a narrow key rotate itself into exactly its own scopes', async () => {
    const k = await mintKey(owner.token, 'self', { scopes: ['attestation:read'] });
    const res = await rotate(k.key, k.id);
    expect(res.status).toBe(200);
    expect(await listScopes(owner.token, res.body.key_id)).toEqual(['attestation:read']);
    const verify = await post('/verify/math', MATH, key(res.body.new_key_secret));
    expect(verify.status).toBe(403);
    expect(verify.body).toEqual({
      detail: "API key lacks the required scope 'verify:read'.",
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });
});

describe('6. rotation race: one winner on FerretDB', () => {
  let owner: Member;
  beforeAll(async () => {
    owner = await newTenant();
  });

  it('lets exactly one of 6 concurrent rotations of one key win, in each of 3 trials', async () => {
    const d = await db();
    for (let trial = 0; trial < 3; trial++) {
      const target = await mintKey(owner.token, `race-${trial}`);
      const results = await Promise.all(Array.from({ length: 6 }, () => rotate(owner.key, target.id)));
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        // Still running when the loser arrived: 409; already revoked: the contract's 404.
        expect([409, 404]).toContain(r.status);
        expect(r.body).toEqual({
          detail: r.status === 409 ? IN_PROGRESS : NOT_FOUND,
          code: expect.any(String),
          request_id: expect.any(String),
        });
      }
      const successors = await d.collection('api_keys').find({ rotated_from: target.id, active: true }).toArray();
      expect(successors.map((s) => s._id)).toEqual([winners[0]!.body.key_id]);
      expect((await post('/verify/math', MATH, key(winners[0]!.body.new_key_secret))).status).toBe(200);
      expect((await post('/verify/math', MATH, key(target.key))).status).toBe(401);
    }
  });

  it('answers 409 while another rotation holds the key, and takes over a stale one', async () => {
    const d = await db();
    const busy = await mintKey(owner.token, 'busy');
    await d
      .collection('api_key_rotations')
      .insertOne({ _id: busy.id as any, token: 'other', successor_id: null, created_at: new Date(), done_at: null });
    const res = await rotate(owner.key, busy.id);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: IN_PROGRESS, code: expect.any(String), request_id: expect.any(String) });
    expect((await post('/verify/math', MATH, key(busy.key))).status).toBe(200);

    const stale = await mintKey(owner.token, 'stale');
    await d.collection('api_key_rotations').insertOne({
      _id: stale.id as any,
      token: 'dead',
      successor_id: null,
      created_at: new Date(Date.now() - 120_000),
      done_at: null,
    });
    const ok = await rotate(owner.key, stale.id);
    expect(ok.status).toBe(200);
    expect((await post('/verify/math', MATH, key(ok.body.new_key_secret))).status).toBe(200);
  });
});

describe('7. batch params are validated like the single endpoints', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'code language as an array',
      { query: "require('child_process').exec(cmd)", type: 'code', params: { language: ['javascript'] } },
      'items.1.params.language',
    ],
    [
      'math precision_mode',
      { query: '1 + 1', type: 'math', params: { precision_mode: 'exact' } },
      'items.1.params.precision_mode',
    ],
    ['math context', { query: '1 + 1', type: 'math', params: { context: 'real' } }, 'items.1.params.context'],
    ['logic provider', { query: '(GT x 1)', type: 'logic', params: { provider: 7 } }, 'items.1.params.provider'],
    [
      'sql dialect',
      { query: 'SELECT 1', type: 'sql', params: { schema_ddl: 'CREATE TABLE t (a INT);', dialect: 'cobol' } },
      'items.1.params.dialect',
    ],
    ['sql without schema_ddl', { query: 'SELECT 1', type: 'sql', params: {} }, 'items.1.params.schema_ddl'],
  ])('refuses %s with 400 naming the item and field', async (_label, bad, field) => {
    const before = await (await db()).collection('batch_jobs').countDocuments({ org_id: t.orgId });
    const res = await post('/verify/batch', { items: [{ query: '2 + 2', type: 'math' }, bad] }, key(t.key));
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(new RegExp(`^Invalid field '${field.replace(/\./g, '\\.')}': `));
    expect(await (await db()).collection('batch_jobs').countDocuments({ org_id: t.orgId })).toBe(before);
  });

  it('scans a code item in the language asked for, like /verify/code', async () => {
    const code = "require('child_process').exec(cmd)";
    const [batch, single] = await Promise.all([
      post('/verify/batch', { items: [{ query: code, type: 'code', params: { language: 'javascript' } }] }, key(t.key)),
      post('/verify/code', { code, language: 'javascript' }, key(t.key)),
    ]);
    expect(batch.status).toBe(200);
    expect(single.status).toBe(200);
    const item = batch.body.items[0].result;
    expect(item.admission).not.toBe('ADMIT');
    expect({
      status: item.status,
      admission: item.admission,
      constraint: item.developer_fields?.constraint_id,
    }).toEqual({
      status: single.body.status,
      admission: single.body.admission,
      constraint: single.body.developer_fields?.constraint_id,
    });
  });
});

describe('8. CSV exports never split a row', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
    for (const code of ['x\n=1+1', "'\r=1+1", 'y\r\n@SUM(A1)']) {
      const res = await post('/verify/code', { code, language: 'python' }, key(t.key));
      expect(res.status, res.text).toBe(200);
    }
  });

  it.each([
    ['/audit/export', () => bearer(t.token)],
    ['/admin/compliance/export/csv', () => key(t.key)],
  ])('%s quotes fields with CR/LF and neutralises formulas after line breaks', async (path, headers) => {
    const res = await get(path, headers());
    expect(res.status).toBe(200);
    const rows = parse(res.text) as string[][];
    const q = rows[0]!.indexOf('query');
    const queries = rows.slice(1).map((r) => r[q]);
    expect(queries).toEqual(expect.arrayContaining(["x\n'=1+1", "'\r'=1+1", "y\r\n'@SUM(A1)"]));
    for (const r of rows) for (const c of r) expect(c).not.toMatch(/^[=+\-@]/);
    // A reader that splits on any line break sees no formula either.
    for (const line of res.text.split(/\r\n|\r|\n/)) expect(line).not.toMatch(/^[=+\-@]/);
  });
});

describe('9. deep JSON is a 400, and batch admission leaks nothing', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant();
  });
  const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

  it.each([
    ['/verify/process', `{"trace":"Issue: x","extra":${deep(4500)}}`],
    [
      '/verify/rag',
      `{"target_document_id":"d","chunks":[{"id":"c","metadata":{"document_id":"d"}}],"x":${deep(4500)}}`,
    ],
    ['/verify/batch', `{"items":[{"query":"1+1","type":"math","params":{"x":${deep(4500)}}}]}`],
    ['/verification-context/validate', `{"document":${deep(100)}}`],
  ])('%s answers 400 with a detail', async (path, body) => {
    // This tenant's jobs, not the store's active slots: other files' batches run beside this one.
    const jobs = () => db().then((d) => d.collection('batch_jobs').countDocuments({ org_id: t.orgId }));
    const before = await jobs();
    const res = await http('POST', path, {
      rawBody: body,
      headers: { ...key(t.key), 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Malformed JSON body: nesting deeper than 64 levels at position \d+\.$/);
    expect(await jobs()).toBe(before);
  });

  it('applies to JWT routes too, and 64 levels still pass', async () => {
    const res = await http('POST', '/auth/api-keys', {
      rawBody: `{"name":"x","extra":${deep(65)}}`,
      headers: { ...bearer(t.token), 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    const ok = await http('POST', '/verify/process', {
      rawBody: `{"trace":"Issue: x","extra":${deep(63)}}`,
      headers: { ...key(t.key), 'content-type': 'application/json' },
    });
    expect(ok.status).toBe(200);
  });
});

describe('10. plan limits and X-RateLimit-* on management routes', () => {
  let t: Member;
  beforeAll(async () => {
    t = await newTenant('free');
  });

  it('sets the headers on JWT, admin and metrics routes, from one account budget', async () => {
    const calls = [
      () => get('/auth/me', bearer(t.token)),
      () => get('/auth/api-keys', bearer(t.token)),
      () => get('/audit/logs', bearer(t.token)),
      () => get('/admin/compliance/export/csv', key(t.key)),
      () => get(`/admin/compliance/report/soc2/${t.orgId}`, key(t.key)),
      () => get(`/admin/security/threats/${t.orgId}`, key(t.key)),
      () => get(`/metrics/${t.orgId}`, key(t.key)),
      () => get('/logs', bearer(t.token)),
    ];
    const remaining: number[] = [];
    let reset = 0;
    for (const call of calls) {
      const res = await call();
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
      reset = Number(res.headers.get('x-ratelimit-reset'));
    }
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    // Strictly decreasing within one window (a window roll-over resets it once).
    const drops = remaining.slice(1).filter((r, i) => r !== remaining[i]! - 1).length;
    expect(drops).toBeLessThanOrEqual(1);
  });

  it('answers 429 SVC-005 once the account budget is used up, without touching the verification budget', async () => {
    const u = await newTenant('free');
    const now = Math.floor(Date.now() / 1000);
    const start = now - (now % 60);
    await (
      await db()
    )
      .collection('rate_counters')
      .updateOne(
        { _id: `org-account:${u.orgId}:60:${start}` as any },
        { $set: { count: 60, expires_at: new Date((start + 120) * 1000) } },
        { upsert: true },
      );
    const res = await get(`/admin/compliance/report/soc2/${u.orgId}`, key(u.key));
    if (Math.floor(Date.now() / 1000) - (Math.floor(Date.now() / 1000) % 60) !== start) return; // window rolled over
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'SVC-005', message: 'Rate limit exceeded', details: { limit: 60 } });
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    const verify = await post('/verify/math', MATH, key(u.key));
    expect(verify.status).toBe(200);
  });
});

describe('11. badge logos', () => {
  const svgUri = (svg: string) => `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;

  it('drops an SVG logo hiding an entity-encoded javascript: link', async () => {
    const hostile = svgUri(
      '<svg xmlns="http://www.w3.org/2000/svg"><a href="jav&#x61;script:alert(1)"><rect width="8" height="8"/></a></svg>',
    );
    const res = await get(`/badge/custom?label=a&message=b&logo=${encodeURIComponent(hostile)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.text).not.toContain('<image');
    expect(res.text).not.toContain(hostile.split(',')[1]);
  });

  it('embeds an allow-listed SVG logo in canonical form', async () => {
    const logo =
      "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'><!-- c --><rect width='8' height='8' fill='#0a0'/></svg>";
    const res = await get(`/badge/custom?label=a&message=b&logo=${encodeURIComponent(svgUri(logo))}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      svgUri(
        '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#0a0"/></svg>',
      ),
    );
  });
});

describe('12. sign-up of an existing e-mail', () => {
  it('answers the documented 409 without any account data', async () => {
    const t = await newTenant();
    const res = await post(
      '/auth/signup',
      { email: t.email, password: 'another long passphrase 42', organization_name: 'Other' },
      { 'x-forwarded-for': randomIp() },
    );
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: 'An account with this e-mail already exists.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });
});
