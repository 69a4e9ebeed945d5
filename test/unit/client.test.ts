import { describe, expect, it } from 'vitest';
import { SvcClient, SvcApiError } from '../../client/index.js';

function fakeFetch(status: number, body: unknown, seen: { headers?: Record<string, string>; url?: string }[]) {
  return (async (url: string, init: RequestInit) => {
    seen.push({ url, headers: init.headers as Record<string, string> });
    return new Response(JSON.stringify(body), { status });
  }) as unknown as typeof fetch;
}

describe('SvcClient', () => {
  it('reads the key from SVC_API_KEY when none is passed', async () => {
    const seen: { headers?: Record<string, string> }[] = [];
    process.env.SVC_API_KEY = 'svc_live_from_env';
    try {
      const c = new SvcClient({ baseUrl: 'http://x', fetch: fakeFetch(200, { ok: 1 }, seen) });
      await c.verifyMath('1+1');
      expect(seen[0]?.headers?.['x-api-key']).toBe('svc_live_from_env');
    } finally {
      delete process.env.SVC_API_KEY;
    }
  });

  it('prefers an explicit key and surfaces error details', async () => {
    const seen: { headers?: Record<string, string> }[] = [];
    const c = new SvcClient({
      baseUrl: 'http://x/',
      apiKey: 'svc_live_explicit',
      fetch: fakeFetch(401, { detail: 'Invalid API key.' }, seen),
    });
    await expect(c.verifyMath('1')).rejects.toEqual(
      new SvcApiError(401, 'Invalid API key.', { detail: 'Invalid API key.' }),
    );
    expect(seen[0]?.headers?.['x-api-key']).toBe('svc_live_explicit');
  });

  it('reads the SVC-005 rate-limit object', async () => {
    const c = new SvcClient({
      baseUrl: 'http://x',
      apiKey: 'k',
      fetch: fakeFetch(429, { error: { code: 'SVC-005', message: 'Rate limit exceeded' } }, []),
    });
    await expect(c.health()).rejects.toMatchObject({ status: 429, detail: 'Rate limit exceeded' });
  });
});

import { redactLiveKeys, auditQuery } from '../../activities/audit.js';
import { generateApiKey } from '../../core/api-keys.js';

describe('audit redaction', () => {
  it('keeps only the masked form of a live key submitted inside code', () => {
    const key = generateApiKey('svc_live_');
    const code = `API_KEY = "${key}"\nprint(API_KEY)`;
    const q = auditQuery({ code }, {});
    expect(q).not.toContain(key);
    expect(q).toContain(`svc_live_********${key.slice(-4)}`);
    expect(redactLiveKeys('no keys here')).toBe('no keys here');
  });
});

describe('Verification Context trust (issue 28 item 6)', () => {
  it('trustContext is true only when the document resolves and was issued here', async () => {
    const answer = (body: unknown) =>
      new SvcClient({ baseUrl: 'http://x', apiKey: 'k', fetch: fakeFetch(200, body, []) });
    const doc = { document: {} } as never;
    expect(
      await answer({ resolved: true, issued_here: true, issued_here_reason: 'issued_by_this_service' }).trustContext(
        doc,
      ),
    ).toBe(true);
    // A self-consistent document we never issued (made up, or edited and re-sealed).
    expect(
      await answer({ resolved: true, issued_here: false, issued_here_reason: 'not_issued_here' }).trustContext(doc),
    ).toBe(false);
    expect(
      await answer({
        resolved: false,
        issued_here: false,
        issued_here_reason: 'not_resolved',
        reason: 'commitment_mismatch',
      }).trustContext(doc),
    ).toBe(false);
    // An older server without the field: not trusted (fail closed).
    expect(await answer({ resolved: true }).trustContext(doc)).toBe(false);
  });
});
