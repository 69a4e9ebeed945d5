// Temporal payload encryption through the real stack (docs/payload-encryption.md): workflow
// history (read with the Temporal CLI) and Temporal's SQLite file hold ciphertext only; the codec
// server decodes for platform operators and nobody else; keys rotate without losing history.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newTenant, post, stackEnv, type Member } from './helpers.js';
import { serviceArgs } from '../../infra/service-build.js';
import { codecServerPort, freePort, LEAN_WORKER_ENV, ManagedProcess, ROOT } from '../../infra/stack.js';

const run = promisify(execFile);
const TEMPORAL = path.join(ROOT, '.tools', 'bin', 'temporal');
const INSUFFICIENT = 'Insufficient permissions for this operation';
const MISSING_TOKEN = "Missing access token: send a platform operator's access token as Authorization: Bearer.";
const INVALID_TOKEN = 'Invalid or expired access token.';
const ENCRYPTED = 'binary/encrypted';
const ROTATION_QUEUE = 'svc-codec-rotation';
/** Fields of the SDK core's local-activity marker record (identifiers and times, never inputs). */
const PATCH_MARKER_FIELDS = new Set(['id', 'patch_id', 'patchId', 'deprecated']);
const LOCAL_ACTIVITY_MARKER_FIELDS = new Set([
  'seq',
  'attempt',
  'activity_id',
  'activity_type',
  'complete_time',
  'backoff',
  'original_schedule_time',
]);

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

async function at(url: string, method: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: json };
}

async function startCodecServer(name: string, env: Record<string, string | undefined>) {
  return startEntry(name, path.join('api', 'codec-server.ts'), env);
}

/** Starts an entry point (codec server or API) against the test stack, with its own port and environment. */
async function startEntry(name: string, script: string, env: Record<string, string | undefined>) {
  // A port the kernel picks (session 22 review): the fixed 18176-18179 + offset were inside the test
  // layout's API band (infra/ports.ts), the API of the stack at offset + 176..179. The worker listens on none.
  const port = script.includes('worker') ? 0 : await freePort();
  const lean = script.includes('worker') ? LEAN_WORKER_ENV : {};
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...stackEnv(),
    SVC_CODEC_SERVER_PORT: String(port),
    ...lean,
    ...env,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  const proc = new ManagedProcess(
    {
      name,
      command: process.execPath,
      args: serviceArgs(script, fullEnv),
      env: { ...fullEnv, PORT: String(port) },
      ready: script.includes('worker')
        ? async (p) => p.logContains('SVC_WORKER_READY')
        : async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200,
      // Generous: this machine's start-ups take minutes under load; a refusal ends it at once.
      readyTimeoutMs: 240_000,
    },
    inject('dataDir'),
  );
  await proc.start();
  return { proc, url: `http://127.0.0.1:${port}` };
}

/** `temporal workflow show --output json` (optionally through a codec server) as text. */
async function showHistory(workflowId: string, codec?: { url: string; token: string }): Promise<string> {
  const args = [
    'workflow',
    'show',
    '--workflow-id',
    workflowId,
    '--address',
    stackEnv().TEMPORAL_ADDRESS as string,
    '--output',
    'json',
  ];
  if (codec) args.push('--codec-endpoint', codec.url, '--codec-auth', `Bearer ${codec.token}`);
  const { stdout } = await run(TEMPORAL, args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

interface FoundPayload {
  path: string;
  metadata: Record<string, string>;
  data: string;
}

/** Every Payload object ({metadata, data}) anywhere in the CLI's JSON, with where it sits. */
function payloadsOf(json: unknown, at = ''): FoundPayload[] {
  if (Array.isArray(json)) return json.flatMap((v, i) => payloadsOf(v, `${at}[${i}]`));
  if (typeof json !== 'object' || json === null) return [];
  const o = json as Record<string, unknown>;
  if (typeof o.metadata === 'object' && o.metadata !== null && 'encoding' in (o.metadata as object)) {
    return [
      { path: at, metadata: o.metadata as Record<string, string>, data: typeof o.data === 'string' ? o.data : '' },
    ];
  }
  return Object.entries(o).flatMap(([k, v]) => payloadsOf(v, `${at}.${k}`));
}

/** The CLI prints events as one JSON document (or several): parse each. */
function parseHistory(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    return trimmed
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => JSON.parse(l));
  }
}

/**
 * Asserts the history holds no needle in plaintext, in its raw text, in any base64 string
 * (decoded) or in any payload; every payload except search attributes is encrypted. Returns the
 * encrypted payloads.
 */
function assertCiphertextOnly(text: string, needles: string[]): FoundPayload[] {
  for (const n of needles) expect(text).not.toContain(n);
  for (const m of text.matchAll(/"([A-Za-z0-9+/=_-]{16,})"/g)) {
    const decoded = Buffer.from(m[1] as string, 'base64').toString('latin1');
    for (const n of needles) expect(decoded).not.toContain(n);
  }
  const found = payloadsOf(parseHistory(text));
  const encrypted: FoundPayload[] = [];
  for (const p of found) {
    const encoding = unb64(p.metadata.encoding as string);
    if (/searchAttributes|indexedFields/.test(p.path)) {
      // Search attributes are indexed in clear by design: identifiers only (organization, engine, count, status).
      expect(encoding, p.path).toBe('json/plain');
      continue;
    }
    if (/markerRecordedEventAttributes\.details\.patch-data\./.test(p.path)) {
      // A patch marker (workflow versioning, e.g. batch-math-chunks): the SDK core writes the
      // patch's name and whether it is deprecated, never user data.
      expect(encoding, p.path).toBe('json/plain');
      const record = JSON.parse(unb64(p.data)) as Record<string, unknown>;
      expect(
        Object.keys(record).every((k) => PATCH_MARKER_FIELDS.has(k)),
        JSON.stringify(record),
      ).toBe(true);
      continue;
    }
    if (/header\.fields\.svc-input-auth$/.test(p.path) || /header\.fields\.svc-activity-grant$/.test(p.path)) {
      // The API's proof on a workflow's input, and the grant on each of its activities
      // (core/workflow-input-auth.ts): a MAC, an issue time, organization ids; never user data.
      expect(encoding, p.path).toBe('json/plain');
      const record = JSON.parse(unb64(p.data)) as Record<string, unknown>;
      const fields = p.path.endsWith('svc-input-auth') ? ['issued_at', 'mac', 'v'] : ['mac', 'orgs'];
      expect(Object.keys(record).sort(), p.path).toEqual(fields);
      expect(String(record.mac)).toMatch(/^[0-9a-f]{64}$/);
      continue;
    }
    if (/markerRecordedEventAttributes\.details\.data\./.test(p.path)) {
      // The SDK core's own local-activity marker record (sequence number, activity id and type,
      // attempt, times): written by the core, not by the data converter. The activity's result
      // sits next to it, under details.result, and is encrypted.
      expect(encoding, p.path).toBe('json/plain');
      const record = JSON.parse(unb64(p.data)) as Record<string, unknown>;
      expect(
        Object.keys(record).every((k) => LOCAL_ACTIVITY_MARKER_FIELDS.has(k)),
        JSON.stringify(Object.keys(record)),
      ).toBe(true);
      continue;
    }
    expect(encoding, p.path).toBe(ENCRYPTED);
    encrypted.push(p);
  }
  return encrypted;
}

/** The plaintext a decoded history shows: its text plus every payload's data, base64-decoded. */
function decodedText(text: string): string {
  return [text, ...payloadsOf(parseHistory(text)).map((p) => unb64(p.data))].join('\n');
}

function sqliteBytes(): string {
  const base = path.join(inject('dataDir'), 'temporal.sqlite');
  return [base, `${base}-wal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('\n');
}

describe('Temporal payload encryption', () => {
  let operator: Member;
  let tenant: Member;
  let codec: { proc: ManagedProcess; url: string };
  let rotatedApi: { proc: ManagedProcess; url: string };
  const procs: ManagedProcess[] = [];
  const marker = `plaintext-marker-${randomBytes(8).toString('hex')}`;
  let codeWorkflowId = '';
  // Rotation: the extra processes know the stack's key A and a new key B, and encrypt with B.
  const keyIdB = `rotated-${randomBytes(3).toString('hex')}`;
  let rotatedEnv: Record<string, string>;

  beforeAll(async () => {
    [operator, tenant] = await Promise.all([newTenant(), newTenant()]);
    const keys = JSON.parse(stackEnv().SVC_TEMPORAL_PAYLOAD_KEYS as string) as Record<string, string>;
    rotatedEnv = {
      SVC_TEMPORAL_PAYLOAD_KEYS: JSON.stringify({ ...keys, [keyIdB]: randomBytes(32).toString('base64') }),
      SVC_TEMPORAL_PAYLOAD_KEY_ID: keyIdB,
    };
    // The codec server for operators, and the rotation row's worker and API, start side by side.
    const [c, worker, api] = await Promise.all([
      startCodecServer('codec-operator', {
        ...rotatedEnv,
        SVC_METRICS_OPERATOR_USER_IDS: `usr_nobody,${operator.userId}`,
        SVC_CODEC_SERVER_CORS_ORIGINS: 'http://ui.example.test',
      }),
      startEntry('worker-codec-rotation', path.join('workers', 'verification-worker.ts'), {
        ...rotatedEnv,
        SVC_TASK_QUEUE: ROTATION_QUEUE,
      }),
      startEntry('api-codec-rotation', path.join('api', 'server.ts'), {
        ...rotatedEnv,
        SVC_TASK_QUEUE: ROTATION_QUEUE,
      }),
    ]);
    codec = c;
    rotatedApi = api;
    procs.push(c.proc, worker.proc, api.proc);
  }, 330_000);
  afterAll(async () => {
    for (const p of procs) await p.stop();
  });

  it('POST /verify/code with a live key: the history and the database file hold neither the key nor the code', async () => {
    const code = `MARKER = "${marker}"\nAPI_KEY = '${tenant.key}'\nprint(MARKER, API_KEY)\n`;
    const res = await post('/verify/code', { code, language: 'python' }, { 'x-api-key': tenant.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('VERIFIED');
    codeWorkflowId = res.headers.get('x-workflow-id') as string;
    expect(codeWorkflowId).toMatch(new RegExp(`^verify-code-${tenant.orgId}-[0-9a-f-]{36}$`));

    const history = await showHistory(codeWorkflowId);
    const encrypted = assertCiphertextOnly(history, [tenant.key, marker, 'API_KEY']);
    // Workflow input, activity input and result, workflow result at least; each names its key.
    expect(encrypted.length).toBeGreaterThanOrEqual(4);
    const stackKeyId = stackEnv().SVC_TEMPORAL_PAYLOAD_KEY_ID as string;
    for (const p of encrypted) expect(unb64(p.metadata['encryption-key-id'] as string)).toBe(stackKeyId);

    const db = sqliteBytes();
    expect(db.length).toBeGreaterThan(0);
    expect(db).toContain(codeWorkflowId); // the scan reads the right database
    expect(db).not.toContain(tenant.key);
    expect(db).not.toContain(marker);
    for (const v of Object.values(
      JSON.parse(stackEnv().SVC_TEMPORAL_PAYLOAD_KEYS as string) as Record<string, string>,
    )) {
      expect(db).not.toContain(v);
      expect(history).not.toContain(v);
    }

    // The same history through the codec server, as an operator: the plaintext is there.
    const decoded = decodedText(await showHistory(codeWorkflowId, { url: codec.url, token: operator.token }));
    expect(decoded).toContain(marker);
    expect(decoded).toContain(tenant.key);
  });

  it("the CLI through the codec server with a non-operator's token gets no plaintext", async () => {
    let out = '';
    try {
      out = decodedText(await showHistory(codeWorkflowId, { url: codec.url, token: tenant.token }));
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    }
    expect(out.length).toBeGreaterThan(0);
    expect(out).not.toContain(marker);
    expect(out).not.toContain(tenant.key);
  });

  it('a batch job goes through the codec: its history holds ciphertext, its search attributes identifiers only', async () => {
    const res = await post(
      '/verify/batch',
      {
        items: [
          { query: `print("${marker}")`, type: 'code', params: { language: 'python' } },
          { query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' },
        ],
      },
      { 'x-api-key': tenant.key },
    );
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    const history = await showHistory(res.body.workflow_id);
    const encrypted = assertCiphertextOnly(history, [marker, tenant.key]);
    expect(encrypted.length).toBeGreaterThanOrEqual(6);
    // The start event's search attributes: organization id, engine, item count, status.
    const attrs = payloadsOf(parseHistory(history)).filter((p) => /searchAttributes|indexedFields/.test(p.path));
    expect(attrs.map((p) => JSON.parse(unb64(p.data))).sort()).toEqual(
      expect.arrayContaining([tenant.orgId, 'batch', 2, 'running']),
    );
    const decoded = decodedText(await showHistory(res.body.workflow_id, { url: codec.url, token: operator.token }));
    expect(decoded).toContain(marker);
    expect(sqliteBytes()).not.toContain(marker);
  });

  it('a consensus verification goes through the codec too (single mode, math engine)', async () => {
    const query = '(marker_a + 1)^2 = marker_a^2 + 2*marker_a + 1';
    const res = await post('/verify/consensus', { query }, { 'x-api-key': tenant.key });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-workflow-id') as string;
    expect(id).toMatch(new RegExp(`^verify-consensus-${tenant.orgId}-`));
    const encrypted = assertCiphertextOnly(await showHistory(id), ['marker_a']);
    expect(encrypted.length).toBeGreaterThanOrEqual(4);
    expect(decodedText(await showHistory(id, { url: codec.url, token: operator.token }))).toContain('marker_a');
  });

  describe('codec server', () => {
    let sample: { metadata: Record<string, string>; data: string };
    beforeAll(async () => {
      const encrypted = assertCiphertextOnly(await showHistory(codeWorkflowId), [marker]);
      const first = encrypted[0] as FoundPayload;
      sample = { metadata: first.metadata, data: first.data };
    });
    const decode = (headers: Record<string, string>, body: unknown = { payloads: [sample] }, url = codec.url) =>
      at(`${url}/decode`, 'POST', headers, body);

    it('decodes history payloads for an operator (JWT), also mounted under a prefix', async () => {
      for (const p of ['/decode', '/svc/codec/decode']) {
        const res = await at(
          `${codec.url}${p}`,
          'POST',
          { ...bearer(operator.token), 'x-namespace': 'default' },
          { payloads: [sample] },
        );
        expect(res.status, p).toBe(200);
        expect(res.body.payloads).toHaveLength(1);
        expect(unb64(res.body.payloads[0].metadata.encoding)).toBe('json/plain');
        expect(unb64(res.body.payloads[0].data)).toContain(marker);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
    });

    it('encodes for an operator with the current key; the result decodes again', async () => {
      const plain = { metadata: { encoding: b64('json/plain') }, data: b64(JSON.stringify({ hello: marker })) };
      const enc = await at(`${codec.url}/encode`, 'POST', bearer(operator.token), { payloads: [plain, plain] });
      expect(enc.status).toBe(200);
      expect(enc.body.payloads.map((p: any) => unb64(p.metadata.encoding))).toEqual([ENCRYPTED, ENCRYPTED]);
      expect(unb64(enc.body.payloads[0].metadata['encryption-key-id'])).toBe(keyIdB);
      expect(enc.body.payloads[0].data).not.toBe(enc.body.payloads[1].data); // fresh nonce
      expect(enc.text).not.toContain(b64(JSON.stringify({ hello: marker })));
      const dec = await decode(bearer(operator.token), { payloads: enc.body.payloads });
      expect(dec.status).toBe(200);
      expect(dec.body.payloads).toEqual([plain, plain]);
    });

    it('refuses anonymous (401), bad tokens (401), API keys (401), non-operators (403)', async () => {
      const anon = await decode({});
      expect(anon.status).toBe(401);
      expect(anon.body).toEqual({ detail: MISSING_TOKEN, code: expect.any(String), request_id: expect.any(String) });
      expect(anon.headers.get('www-authenticate')).toBe('Bearer');
      const bad = await decode(bearer(`${operator.token}x`));
      expect(bad.status).toBe(401);
      expect(bad.body).toEqual({ detail: INVALID_TOKEN, code: expect.any(String), request_id: expect.any(String) });
      expect((await decode({ authorization: 'Basic abc' })).body).toEqual({
        detail: INVALID_TOKEN,
        code: expect.any(String),
        request_id: expect.any(String),
      });
      const key = await decode({ 'x-api-key': operator.key });
      expect(key.status).toBe(401);
      expect(key.body).toEqual({ detail: MISSING_TOKEN, code: expect.any(String), request_id: expect.any(String) });
      for (const path of ['/decode', '/encode']) {
        const other = await at(`${codec.url}${path}`, 'POST', bearer(tenant.token), { payloads: [sample] });
        expect(other.status, path).toBe(403);
        expect(other.body).toEqual({ detail: INSUFFICIENT, code: expect.any(String), request_id: expect.any(String) });
        expect(other.text).not.toContain(marker);
      }
    });

    it("the stack's own codec server has no operators configured: everyone gets 403", async () => {
      const url = `http://127.0.0.1:${codecServerPort(inject('ports'))}`;
      const res = await decode(bearer(operator.token), { payloads: [sample] }, url);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: INSUFFICIENT, code: expect.any(String), request_id: expect.any(String) });
      expect((await decode({}, { payloads: [sample] }, url)).status).toBe(401);
    });

    it('bad input: 400 with a detail, 415 for non-JSON, 403 for another namespace, 422 for undecryptable payloads, 404 elsewhere', async () => {
      const op = bearer(operator.token);
      const cases: Array<[unknown, number, string | RegExp]> = [
        [{}, 400, "Invalid field 'payloads': Invalid input: expected array, received undefined"],
        [{ payloads: [{ data: 'not base64!' }] }, 400, /^Invalid field 'payloads\.0\.data': must be base64$/],
        [[1], 400, 'Request body must be a JSON object.'],
      ];
      for (const [body, status, detail] of cases) {
        const res = await decode(op, body);
        expect(res.status, JSON.stringify(body)).toBe(status);
        if (typeof detail === 'string')
          expect(res.body).toEqual({ detail, code: expect.any(String), request_id: expect.any(String) });
        else expect(res.body.detail).toMatch(detail);
      }
      const malformed = await at(
        `${codec.url}/decode`,
        'POST',
        { ...op, 'content-type': 'application/json' },
        '{"payloads": [',
      );
      expect(malformed.status).toBe(400);
      expect(malformed.body.detail).toMatch(/^Malformed JSON body/);
      const text = await at(
        `${codec.url}/decode`,
        'POST',
        { ...op, 'content-type': 'text/plain' },
        JSON.stringify({ payloads: [sample] }),
      );
      expect(text.status).toBe(415);
      expect(text.body).toEqual({
        detail: 'Unsupported Content-Type: send application/json.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
      const ns = await decode({ ...op, 'x-namespace': 'other-ns' });
      expect(ns.status).toBe(403);
      expect(ns.body).toEqual({
        detail: "Namespace 'other-ns' is not served by this codec server.",
        code: expect.any(String),
        request_id: expect.any(String),
      });
      const tampered = {
        ...sample,
        data: Buffer.from(Buffer.from(sample.data, 'base64').map((b, i) => (i === 30 ? b ^ 1 : b))).toString('base64'),
      };
      const bad = await decode(op, {
        payloads: [{ metadata: { encoding: b64('json/plain') }, data: b64('1') }, tampered],
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail).toMatch(
        /^Payload 1 could not be decrypted: encrypted payload does not authenticate under key '/,
      );
      const unknown = await decode(op, {
        payloads: [{ ...sample, metadata: { ...sample.metadata, 'encryption-key-id': b64('no-such-key') } }],
      });
      expect(unknown.status).toBe(422);
      expect(unknown.body).toEqual({
        detail: "Payload 0 could not be decrypted: payload encrypted with unknown key id 'no-such-key'.",
        code: expect.any(String),
        request_id: expect.any(String),
      });
      // Unencrypted payloads pass through decode untouched.
      const plain = { metadata: { encoding: b64('json/plain') }, data: b64('{"a":1}') };
      expect((await decode(op, { payloads: [plain] })).body).toEqual({ payloads: [plain] });
      const nf = await at(`${codec.url}/decrypt`, 'POST', op, { payloads: [] });
      expect(nf.status).toBe(404);
      expect(nf.body).toEqual({ detail: 'Not Found', code: expect.any(String), request_id: expect.any(String) });
      expect((await at(`${codec.url}/decode`, 'GET', op)).status).toBe(404);
    });

    it("answers the Temporal UI's CORS preflight for the UI origin only, and sets CORS headers on answers (errors too)", async () => {
      const pre = await at(`${codec.url}/decode`, 'OPTIONS', {
        origin: 'http://ui.example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-namespace',
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('http://ui.example.test');
      expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
      expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
      expect(pre.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, X-Namespace');
      expect(pre.headers.get('vary')).toContain('Origin');
      const evil = await at(`${codec.url}/decode`, 'OPTIONS', {
        origin: 'http://evil.example.test',
        'access-control-request-method': 'POST',
      });
      expect(evil.status).toBe(403);
      expect(evil.body).toEqual({
        detail: 'Origin not allowed to call this codec server.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
      expect(evil.headers.get('access-control-allow-origin')).toBeNull();
      const ok = await decode({ ...bearer(operator.token), origin: 'http://ui.example.test' });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-origin')).toBe('http://ui.example.test');
      const refused = await decode({ origin: 'http://ui.example.test' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe('http://ui.example.test');
      const foreign = await decode({ ...bearer(operator.token), origin: 'http://evil.example.test' });
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('UI session: an operator opens an HttpOnly cookie session; the cookie decodes from the UI origin only', async () => {
      const denied = await at(`${codec.url}/session`, 'POST', bearer(tenant.token));
      expect(denied.status).toBe(403);
      expect(denied.headers.get('set-cookie')).toBeNull();
      expect((await at(`${codec.url}/session`, 'POST')).status).toBe(401);
      const open = await at(`${codec.url}/session`, 'POST', bearer(operator.token));
      expect(open.status).toBe(204);
      const cookie = open.headers.get('set-cookie') as string;
      expect(cookie).toMatch(/^svc_codec_session=[^;]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=3600$/);
      const jar = { cookie: cookie.split(';')[0] as string };
      const fromUi = await decode({ ...jar, origin: 'http://ui.example.test' });
      expect(fromUi.status).toBe(200);
      expect(unb64(fromUi.body.payloads[0].data)).toContain(marker);
      const fromElsewhere = await decode({ ...jar, origin: 'http://evil.example.test' });
      expect(fromElsewhere.status).toBe(401);
      // A non-operator's token in the cookie is still refused.
      expect((await decode({ cookie: `svc_codec_session=${tenant.token}` })).status).toBe(403);
      const closed = await at(`${codec.url}/session`, 'DELETE');
      expect(closed.headers.get('set-cookie')).toContain('Max-Age=0');
      const page = await at(`${codec.url}/`, 'GET');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    });

    it("the stack's Temporal UI is pointed at the stack's codec server", async () => {
      const ports = inject('ports');
      const res = await at(`http://127.0.0.1:${ports.temporalUi}/api/v1/settings`, 'GET');
      expect(res.status).toBe(200);
      expect(res.body.Codec.Endpoint).toBe(`http://127.0.0.1:${codecServerPort(ports)}`);
    });
  });

  describe('rotation (extra worker and API encrypting with key B, key A kept)', () => {
    it('a workflow under key A and one under key B both decode; each payload names its key', async () => {
      const res = await at(
        `${rotatedApi.url}/verify/code`,
        'POST',
        { 'x-api-key': tenant.key },
        { code: `print("${marker}-b")`, language: 'python' },
      );
      expect(res.status).toBe(200);
      const idB = res.headers.get('x-workflow-id') as string;
      const underB = assertCiphertextOnly(await showHistory(idB), [`${marker}-b`]);
      expect(new Set(underB.map((p) => unb64(p.metadata['encryption-key-id'] as string)))).toEqual(new Set([keyIdB]));
      const underA = assertCiphertextOnly(await showHistory(codeWorkflowId), [marker]);
      expect(new Set(underA.map((p) => unb64(p.metadata['encryption-key-id'] as string)))).toEqual(
        new Set([stackEnv().SVC_TEMPORAL_PAYLOAD_KEY_ID]),
      );
      // The codec server knows A and B: both histories decode.
      expect(decodedText(await showHistory(idB, { url: codec.url, token: operator.token }))).toContain(`${marker}-b`);
      expect(decodedText(await showHistory(codeWorkflowId, { url: codec.url, token: operator.token }))).toContain(
        marker,
      );
      // The rotated API reads results written under B; the old-key workflow's result still reads under A.
      expect(res.body.status).toBe('VERIFIED');
    });
  });

  it('the API, the worker and the codec server refuse to start without a payload key (or with a bad one)', async () => {
    const noKey = { SVC_TEMPORAL_PAYLOAD_KEYS: undefined, SVC_TEMPORAL_PAYLOAD_KEY_ID: undefined };
    const refusal =
      /SVC_TEMPORAL_PAYLOAD_KEYS is not set: Temporal clients and workers refuse to start without a payload encryption key/;
    await Promise.all([
      expect(startEntry('api-codec-nokey', path.join('api', 'server.ts'), noKey)).rejects.toThrow(refusal),
      expect(
        startEntry('worker-codec-nokey', path.join('workers', 'verification-worker.ts'), {
          ...noKey,
          SVC_TASK_QUEUE: 'svc-codec-nokey',
        }),
      ).rejects.toThrow(refusal),
      expect(
        startCodecServer('codec-nokey', {
          SVC_TEMPORAL_PAYLOAD_KEYS: JSON.stringify({ short: randomBytes(16).toString('base64') }),
        }),
      ).rejects.toThrow(/SVC_TEMPORAL_PAYLOAD_KEYS: key 'short' is 16 bytes; AES-256 needs exactly 32/),
    ]);
  }, 300_000);
});
