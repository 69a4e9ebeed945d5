import { describe, expect, it } from 'vitest';
import { parseRate, ragRequestSchema, validateRagRequest, verifyRag, type RagResult } from '../../engines/rag.js';

const chunk = (id: string | number, documentId: string) => ({ id, metadata: { document_id: documentId } });

function check(body: unknown): RagResult {
  const v = validateRagRequest(body);
  if (!v.ok) throw new Error(`unexpected 400: ${v.detail}`);
  return verifyRag(v.value);
}

describe('verifyRag', () => {
  it('verifies when every chunk comes from the target document', () => {
    expect(check({ target_document_id: 'doc-1', chunks: [chunk('a', 'doc-1'), chunk('b', 'doc-1')] })).toEqual({
      verified: true,
      risk: null,
      drm_rate: 0,
      chunks_checked: 2,
      mismatched_count: 0,
    });
  });

  it('fails any mismatch under the default rate "0"', () => {
    expect(
      check({ target_document_id: 'doc-1', chunks: [chunk('a', 'doc-1'), chunk('b', 'doc-2'), chunk('c', 'doc-1')] }),
    ).toEqual({
      verified: false,
      risk: 'DOCUMENT_RETRIEVAL_MISMATCH',
      drm_rate: 1 / 3,
      chunks_checked: 3,
      mismatched_count: 1,
    });
  });

  it('accepts a rate exactly at the limit (1/3 ≤ "1/3")', () => {
    expect(
      check({ target_document_id: 'd', chunks: [chunk(1, 'd'), chunk(2, 'x'), chunk(3, 'd')], max_drm_rate: '1/3' })
        .verified,
    ).toBe(true);
  });

  it('compares exactly where floating point would not: 1/3 > "0.3333333333333333"', () => {
    // As doubles, 1/3 === 0.3333333333333333; as fractions it is larger.
    expect(1 / 3 <= 0.3333333333333333).toBe(true);
    const r = check({
      target_document_id: 'd',
      chunks: [chunk(1, 'd'), chunk(2, 'x'), chunk(3, 'd')],
      max_drm_rate: '0.3333333333333333',
    });
    expect(r.verified).toBe(false);
    expect(r.risk).toBe('DOCUMENT_RETRIEVAL_MISMATCH');
  });

  it('compares exactly where floating point would round up: 1/10 ≤ "0.1" and 3/10 ≤ "0.3"', () => {
    const ten = (bad: number) => Array.from({ length: 10 }, (_, i) => chunk(i, i < bad ? 'x' : 'd'));
    expect(check({ target_document_id: 'd', chunks: ten(1), max_drm_rate: '0.1' }).verified).toBe(true);
    expect(check({ target_document_id: 'd', chunks: ten(3), max_drm_rate: '0.3' }).verified).toBe(true);
    expect(check({ target_document_id: 'd', chunks: ten(4), max_drm_rate: '0.3' }).verified).toBe(false);
  });

  it.each([
    ['1/10', true],
    ['1e-1', true],
    ['.1', true],
    ['0.10', true],
    ['10/100', true],
    ['0.09', false],
    ['9e-2', false],
    ['1', true],
    ['0', false],
  ])('max_drm_rate %s with 1 of 10 mismatched → verified %s', (rate, verified) => {
    const chunks = Array.from({ length: 10 }, (_, i) => chunk(`c${i}`, i === 0 ? 'other' : 'target'));
    expect(check({ target_document_id: 'target', chunks, max_drm_rate: rate }).verified).toBe(verified);
  });

  it('treats document ids as exact, case-sensitive strings', () => {
    expect(check({ target_document_id: 'Doc', chunks: [chunk('a', 'doc'), chunk('b', 'Doc ')] }).mismatched_count).toBe(
      2,
    );
  });

  it('ignores unknown keys in the body, chunks and metadata', () => {
    const r = check({
      target_document_id: 'd',
      extra: true,
      chunks: [{ id: 'a', text: 'hello', score: 0.9, metadata: { document_id: 'd', page: 3 } }],
    });
    expect(r).toEqual({ verified: true, risk: null, drm_rate: 0, chunks_checked: 1, mismatched_count: 0 });
  });

  it('reports drm_rate 1 when nothing matches', () => {
    expect(check({ target_document_id: 'd', chunks: [chunk('a', 'x')], max_drm_rate: '1' })).toEqual({
      verified: true,
      risk: null,
      drm_rate: 1,
      chunks_checked: 1,
      mismatched_count: 1,
    });
  });
});

describe('parseRate', () => {
  it.each([
    ['0', 0n, 1n],
    ['1', 1n, 1n],
    ['0.25', 25n, 100n],
    ['.5', 5n, 10n],
    ['3/4', 3n, 4n],
    ['1e-1', 1n, 10n],
    ['2.5E-2', 25n, 1000n],
    ['1e0', 1n, 1n],
    ['1.', 1n, 1n],
  ])('%s → %s/%s', (text, numerator, denominator) => {
    expect(parseRate(text)).toEqual({ numerator, denominator });
  });
  it.each(['', '-0.1', '+0.1', ' 0.1', '0.1 ', '1/0', 'abc', '0x1', 'NaN', 'Infinity', '1e-401', '1/2/3', '½'])(
    'rejects %j',
    (text) => {
      expect(parseRate(text)).toBeNull();
    },
  );
});

describe('ragRequestSchema / validateRagRequest (HTTP 400 details)', () => {
  const ok = [chunk('a', 'd')];
  it.each([
    [{ target_document_id: '', chunks: ok }, 'target_document_id must be a non-empty string'],
    [{ target_document_id: '   ', chunks: ok }, 'target_document_id must be a non-empty string'],
    [{ chunks: ok }, 'target_document_id is required'],
    [{ target_document_id: 7, chunks: ok }, 'target_document_id must be a string'],
    [{ target_document_id: 'd', chunks: [] }, 'chunks must be a non-empty array'],
    [{ target_document_id: 'd' }, 'chunks is required'],
    [{ target_document_id: 'd', chunks: 'x' }, 'chunks must be an array of objects'],
    [{ target_document_id: 'd', chunks: [{ id: 'a' }] }, 'every chunk must have metadata with document_id'],
    [{ target_document_id: 'd', chunks: [{ id: 'a', metadata: {} }] }, 'every chunk must have metadata.document_id'],
    [
      { target_document_id: 'd', chunks: [{ id: 'a', metadata: { document_id: 3 } }] },
      'chunk metadata.document_id must be a string',
    ],
    [
      { target_document_id: 'd', chunks: [{ id: 'a', metadata: { document_id: '' } }] },
      'chunk metadata.document_id must be a non-empty string',
    ],
    [{ target_document_id: 'd', chunks: [{ metadata: { document_id: 'd' } }] }, 'every chunk must have an id'],
    [{ target_document_id: 'd', chunks: ['x'] }, 'every chunk must be an object with id and metadata.document_id'],
    [
      { target_document_id: 'd', chunks: ok, max_drm_rate: 0.1 },
      'max_drm_rate must be a string (numeric JSON values are refused; use a string such as "0", "0.1", "1/10" or "1e-1")',
    ],
    [
      { target_document_id: 'd', chunks: [{ id: true, metadata: { document_id: 'd' } }] },
      'chunk id must be a string or a number',
    ],
    [{ target_document_id: 'd', chunks: [{ id: 'a', metadata: 'x' }] }, 'chunk metadata must be an object'],
    [{ target_document_id: 'd', chunks: ok, max_drm_rate: '1.5' }, "max_drm_rate '1.5' is outside [0, 1]"],
    [{ target_document_id: 'd', chunks: ok, max_drm_rate: '3/2' }, "max_drm_rate '3/2' is outside [0, 1]"],
    [
      { target_document_id: 'd', chunks: ok, max_drm_rate: '-0.1' },
      `max_drm_rate '-0.1' is not a valid rate; use a string such as "0", "0.1", "1/10" or "1e-1"`,
    ],
    [
      { target_document_id: 'd', chunks: ok, max_drm_rate: 'ten percent' },
      `max_drm_rate 'ten percent' is not a valid rate; use a string such as "0", "0.1", "1/10" or "1e-1"`,
    ],
    [[], 'request body must be a JSON object'],
  ])('%j → %s', (body, detail) => {
    expect(validateRagRequest(body)).toEqual({ ok: false, detail });
  });

  it('defaults max_drm_rate to "0"', () => {
    const parsed = ragRequestSchema.parse({ target_document_id: 'd', chunks: ok });
    expect(parsed.max_drm_rate).toEqual({ text: '0', rate: { numerator: 0n, denominator: 1n } });
  });

  // Issue 23: null is absent for every optional field (contract/common.ts, nullMeansAbsent).
  it('reads max_drm_rate null as absent (the default "0")', () => {
    const parsed = ragRequestSchema.parse({ target_document_id: 'd', chunks: ok, max_drm_rate: null });
    expect(parsed.max_drm_rate).toEqual({ text: '0', rate: { numerator: 0n, denominator: 1n } });
  });
});
