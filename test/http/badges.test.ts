// /badge/* over HTTP: SVG for every outcome (unknown ids included), and hostile inputs from
// the URL never reach the SVG as markup, links, scripts or styles.
import { beforeAll, describe, expect, it } from 'vitest';
import { db, get, newTenant, post, stackEnv, type Member } from './helpers.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import { attestationEntryId, attestationOfEntry } from '../../persistence/proofs.js';
import type { AuditLogDoc } from '../../core/audit-log.js';

const NOT_FOUND_ATT = 'att_00000000000000000000000000000000';

function expectSafeSvg(res: { status: number; headers: Headers; text: string }) {
  expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('content-security-policy')).toBe(
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
  );
  expect(res.text.startsWith('<svg')).toBe(true);
  expect(res.text.trimEnd().endsWith('</svg>')).toBe(true);
  const lower = res.text.toLowerCase();
  for (const bad of ['<script', '<a ', '<a>', '<foreignobject', '<iframe', '<!entity', '<!doctype']) {
    expect(lower).not.toContain(bad);
  }
  // No event-handler attribute and no javascript: URL in any attribute (escaped text is fine).
  for (const [, name, value] of attributes(res.text)) {
    expect(name.toLowerCase().startsWith('on'), name).toBe(false);
    expect(value.toLowerCase().includes('javascript:'), `${name}=${value}`).toBe(false);
  }
}

/** Every attribute of every tag, as [tag, name, value] (values are quoted; '<' inside them is escaped). */
function attributes(svg: string): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  const tags = [...svg.matchAll(/<([a-zA-Z][\w:-]*)((?:\s+[\w:-]+\s*=\s*"[^"]*")*)\s*\/?>/g)];
  // Every opening tag must have this well-formed shape, or it would escape the checks.
  expect(tags.length).toBe((svg.match(/<[a-zA-Z]/g) ?? []).length);
  for (const tag of tags) {
    for (const attr of (tag[2] as string).matchAll(/([\w:-]+)\s*=\s*"([^"]*)"/g))
      out.push([tag[1] as string, attr[1] as string, attr[2] as string]);
  }
  return out;
}

/** The fill of the message half of a flat badge. */
const messageColor = (svg: string) => /<rect x="\d+" width="\d+" height="20" fill="(#[0-9a-f]+)"\/>/.exec(svg)?.[1];

/** The visible texts of a badge-maker SVG (its <text> elements, unescaped). */
function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) =>
    (m[1] as string)
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;|&apos;/g, "'")
      .replace(/&amp;/g, '&'),
  );
}

describe('badges', () => {
  it('GET /badge/verified: verified only for status=verified', async () => {
    const ok = await get('/badge/verified?status=verified');
    expect(ok.status).toBe(200);
    expectSafeSvg(ok);
    expect(texts(ok.text)).toEqual(expect.arrayContaining(['svc', 'verified']));
    expect(messageColor(ok.text)).toBe('#4b0'); // brightgreen
    for (const q of ['', '?status=failed', '?status=VERIFIED%20', '?status=yes']) {
      const res = await get(`/badge/verified${q}`);
      expect(res.status).toBe(200);
      expectSafeSvg(res);
      const shown = texts(res.text);
      if (q === '?status=VERIFIED%20') expect(shown).toContain('verified');
      else {
        expect(shown).toContain('failed');
        expect(messageColor(res.text)).toBe('#dd4343'); // red
      }
    }
  });

  it('GET /badge/status/{status} and /badge/engine/{engine}', async () => {
    const s = await get('/badge/status/verified');
    expectSafeSvg(s);
    expect(texts(s.text)).toContain('VERIFIED');
    const b = await get('/badge/status/blocked');
    expect(texts(b.text)).toContain('BLOCKED');
    expect(messageColor(b.text)).toBe('#dd4343'); // critical
    // Issue 27: an unknown status is not drawn (this row used to expect the URL's text on the badge).
    const unknown = await get('/badge/status/whatever');
    expect(unknown.status).toBe(404);
    expectSafeSvg(unknown);
    expect(texts(unknown.text)).toContain('unknown');
    expect(texts(unknown.text)).not.toContain('WHATEVER');
    const unverifiable = await get('/badge/status/UNVERIFIABLE');
    expect(unverifiable.status).toBe(200);
    expect(messageColor(unverifiable.text)).toBe('#9a6700'); // not the label's grey
    const e = await get('/badge/engine/MATH');
    expectSafeSvg(e);
    expect(texts(e.text)).toEqual(expect.arrayContaining(['engine', 'math']));
  });

  it('GET /badge/custom renders label, message, color and a safe logo', async () => {
    const png =
      'data:image/png;base64,' +
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(8)]).toString(
        'base64',
      );
    const res = await get(`/badge/custom?label=build&message=passing&color=%23123abc&logo=${encodeURIComponent(png)}`);
    expect(res.status).toBe(200);
    expectSafeSvg(res);
    expect(texts(res.text)).toEqual(expect.arrayContaining(['build', 'passing']));
    expect(messageColor(res.text)).toBe('#123abc');
    expect(res.text).toContain(png);
  });

  it.each([
    [
      'markup in the label',
      'label=%3Cscript%3Ealert(1)%3C%2Fscript%3E&message=x',
      (svg: string) => expect(texts(svg)).toContain('<script>alert(1)</script>'),
    ],
    [
      'quotes and ampersands',
      'label=a%22b%26c%27d&message=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E',
      (svg: string) => expect(texts(svg)).toContain('a"b&c\'d'),
    ],
    [
      'CSS injection in the color',
      'message=x&color=red%3Bfill%3Aurl(javascript%3Aalert(1))',
      (svg: string) => expect(messageColor(svg)).toBe('#555'),
    ],
    [
      'a javascript: logo',
      'message=x&logo=javascript%3Aalert(1)',
      (svg: string) => expect(svg).not.toContain('<image'),
    ],
    [
      'an SVG logo with a script',
      `message=x&logo=${encodeURIComponent('data:image/svg+xml;base64,' + Buffer.from('<svg onload="alert(1)"><script>alert(1)</script></svg>').toString('base64'))}`,
      (svg: string) => expect(svg).not.toContain('<image'),
    ],
    [
      'bidi overrides and control characters',
      'label=%E2%80%AEevil%00%07&message=ok',
      (svg: string) => expect(texts(svg)).toContain('evil'),
    ],
    [
      'an overlong label',
      `label=${'A'.repeat(5000)}&message=x`,
      (svg: string) => expect(texts(svg)).toContain(`${'A'.repeat(63)}\u2026`),
    ],
    ['repeated parameters', 'label=one&label=two&message=x', (svg: string) => expect(texts(svg)).toContain('one')],
    [
      'invalid percent-encoding',
      'label=%E0%A4%A&message=%ED%A0%80',
      (svg: string) => expect(svg.length).toBeGreaterThan(0),
    ],
  ])('neutralises %s', async (_label, query, check) => {
    const res = await get(`/badge/custom?${query}`);
    expect(res.status).toBe(200);
    expectSafeSvg(res);
    check(res.text);
    // The raw hostile text never appears unescaped.
    expect(res.text).not.toMatch(/<script|<img|\u202e|\u0000/i);
  });

  it('hostile path segments give badges, not error pages', async () => {
    for (const p of [
      '/badge/status/%3Csvg%20onload%3Dalert(1)%3E',
      '/badge/engine/..%2F..%2Fetc%2Fpasswd',
      '/badge/status/%F0%9F%98%80',
      '/badge/attestation/%3Cscript%3E',
    ]) {
      const res = await get(p);
      // Unknown statuses are 404 with the fixed "unknown" badge (issue 27); the others stay 200.
      expect(res.status, p).toBe(p.startsWith('/badge/status/') ? 404 : 200);
      expectSafeSvg(res);
    }
  });
});

describe('GET /badge/attestation/{id}', () => {
  let t: Member;
  let attId: string;
  beforeAll(async () => {
    t = await newTenant();
    const res = await post('/verify/math', { expression: '(s+3)^2 = s^2 + 6*s + 9' }, { 'x-api-key': t.key });
    attId = res.body.attestation.id;
  });

  it('is "verified" for a stored attestation whose token verifies (no authentication needed)', async () => {
    const res = await get(`/badge/attestation/${attId}`);
    expect(res.status).toBe(200);
    expectSafeSvg(res);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(texts(res.text)).toEqual(expect.arrayContaining(['attestation', 'verified']));
  });

  it('is "not found" for unknown and malformed ids', async () => {
    for (const id of [NOT_FOUND_ATT, 'nope', 'att_' + 'g'.repeat(32)]) {
      const res = await get(`/badge/attestation/${id}`);
      expect(res.status).toBe(200);
      expectSafeSvg(res);
      expect(texts(res.text)).toEqual(expect.arrayContaining(['attestation', 'not found']));
    }
  });

  it('is "expired" or "invalid" when the stored token no longer verifies', async () => {
    const col = (await db()).collection('attestations');
    // The math verification's record is in its audit entry (session 16): copied from there.
    const rec = attestationOfEntry(
      await (await db()).collection<AuditLogDoc>('audit_logs').findOne({ _id: attestationEntryId(attId) as string }),
      attId,
    );
    expect(rec).not.toBeNull();
    const pem = stackEnv().SVC_ATTESTATION_SIGNING_KEY_PEM as string;
    const expired = await new AttestationSigner(
      await loadSigningKey(pem),
      stackEnv().SVC_DEPLOYMENT_ID ?? 'svc-local',
      -60,
    ).sign({
      evaluatedExpression: 'x',
      status: 'VERIFIED',
      verified: true,
      engine: 'math',
      confidence: 1,
      proofRef: null,
    });
    const expiredId = expired.jti;
    await col.insertOne({ ...rec, _id: expiredId as any, token: expired.token });
    expect(texts((await get(`/badge/attestation/${expiredId}`)).text)).toContain('expired');
    const forgedId = 'att_' + 'f'.repeat(32);
    await col.insertOne({ ...rec, _id: forgedId as any, token: `${rec!.token.slice(0, -4)}AAAA` });
    const res = await get(`/badge/attestation/${forgedId}`);
    expect(res.status).toBe(200);
    expect(texts(res.text)).toContain('invalid');
  });
});
