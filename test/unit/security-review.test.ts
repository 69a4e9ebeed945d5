// Unit tier of the security-review fixes (issue 16, items 5, 8, 9, 11); the black-box
// reproductions are in test/http/security-review.test.ts.
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { DEFAULT_API_KEY_SCOPES, maxScopesForRole, scopesCovered } from '../../core/scopes.js';
import { JSON_MAX_DEPTH, jsonDepthExceededAt, parseStrictJson, StrictJsonError } from '../../core/strict-json.js';
import { auditCsv, csvCell } from '../../core/audit-csv.js';
import type { AuditLogView } from '../../core/audit-log.js';
import { parseSvgLogo, sanitizeSvgLogo, serializeSvg, SvgLogoError } from '../../core/svg-logo.js';
import { sanitizeLogo } from '../../core/badges.js';

describe('scopes a key may carry', () => {
  it('gives admin:all to owners and admins only, nothing to unknown roles', () => {
    expect(maxScopesForRole('owner')).toEqual([...DEFAULT_API_KEY_SCOPES, 'admin:all']);
    expect(maxScopesForRole('admin')).toEqual([...DEFAULT_API_KEY_SCOPES, 'admin:all']);
    expect(maxScopesForRole('member')).toEqual(DEFAULT_API_KEY_SCOPES);
    expect(maxScopesForRole('superuser')).toEqual([]);
    expect(maxScopesForRole(undefined)).toEqual([]);
  });

  it.each([
    [['admin:all'], ['admin:all', 'verify:read'], true],
    [['verify:read', 'attestation:read'], ['attestation:read'], true],
    [['attestation:read'], ['admin:all'], false],
    [['verify:read'], ['verify:read', 'agent:write'], false],
    [['verify:read'], ['bogus'], false],
    [['verify:read'], [], true],
    [null, ['verify:read'], false],
    [['verify:read'], null, false],
  ] as const)('held %j covers %j → %s', (held, requested, expected) => {
    expect(scopesCovered(held as unknown[] | null, requested as unknown[] | null)).toBe(expected);
  });
});

describe('JSON nesting bound', () => {
  it('finds the bracket that opens level 65, ignoring brackets inside strings', () => {
    const ok = '['.repeat(JSON_MAX_DEPTH) + ']'.repeat(JSON_MAX_DEPTH);
    expect(jsonDepthExceededAt(ok)).toBe(-1);
    const deep = '{"a":' + '['.repeat(JSON_MAX_DEPTH) + ']'.repeat(JSON_MAX_DEPTH) + '}';
    expect(jsonDepthExceededAt(deep)).toBe(5 + JSON_MAX_DEPTH - 1);
    expect(jsonDepthExceededAt(JSON.stringify({ s: '['.repeat(5000) + '\\"[' }))).toBe(-1);
    expect(jsonDepthExceededAt('[' + '"\\"",'.repeat(10) + '{}]', 1)).toBe(51);
  });

  it('makes parseStrictJson refuse 65 levels by default', () => {
    const text = '['.repeat(65) + ']'.repeat(65);
    expect(() => parseStrictJson(text)).toThrow(StrictJsonError);
    expect(parseStrictJson('['.repeat(64) + ']'.repeat(64))).toBeDefined();
  });
});

describe('CSV cells', () => {
  it('neutralises formula starts at the start and after every line break', () => {
    expect(csvCell('x\n=1+1')).toBe("x\n'=1+1");
    expect(csvCell("'\r=1+1")).toBe("'\r'=1+1");
    expect(csvCell('a\r\n@SUM(A1)\n-2\n+3')).toBe("a\r\n'@SUM(A1)\n'-2\n'+3");
    expect(csvCell('=HYPERLINK("x")')).toBe('\'=HYPERLINK("x")');
    expect(csvCell('plain\ntext')).toBe('plain\ntext');
  });

  it('quotes every field holding CR or LF, so a reader never sees a new row or a formula cell', () => {
    const view = { id: 'x\n=1+1', query: "'\r=1+1", raw_llm_output: 'a\rb' } as unknown as AuditLogView;
    const csv = auditCsv([view]);
    const rows = parse(csv, { relax_column_count: true }) as string[][];
    expect(rows).toHaveLength(2);
    expect(rows[1]?.[0]).toBe("x\n'=1+1");
    expect(rows[1]?.[10]).toBe("'\r'=1+1");
    for (const line of csv.split(/\r\n|\r|\n/)) expect(line).not.toMatch(/^[=+\-@]/);
  });
});

describe('SVG logo parser', () => {
  const uri = (svg: string) => `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  const decoded = (u: string | undefined) =>
    u ? Buffer.from(u.split(',')[1] as string, 'base64').toString('utf8') : undefined;

  it('keeps an allow-listed logo in canonical form', () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><g fill="url(#g)"><circle cx="4" cy="4" r="3"/></g><title>A &amp; B</title></svg>';
    expect(decoded(sanitizeLogo(uri(svg)))).toBe(svg);
    const messy =
      "<?xml version='1.0'?>\n<!-- c --><svg xmlns='http://www.w3.org/2000/svg' width = '8'>\n  <rect width='8' height='8'></rect>\n</svg>\n";
    expect(decoded(sanitizeLogo(uri(messy)))).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" width="8"><rect width="8" height="8"/></svg>',
    );
    expect(serializeSvg(parseSvgLogo('<svg><path d="M0 0h1"/></svg>'))).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h1"/></svg>',
    );
  });

  it.each([
    [
      'entity-encoded javascript: link',
      '<svg xmlns="http://www.w3.org/2000/svg"><a href="jav&#x61;script:alert(1)"><rect/></a></svg>',
    ],
    [
      'encoded scheme in an allowed attribute',
      '<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(jav&#x61;script&#58;x)"/></svg>',
    ],
    ['external url()', '<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https//x)"/></svg>'],
    ['style element', '<svg xmlns="http://www.w3.org/2000/svg"><style>*{}</style></svg>'],
    ['style attribute', '<svg xmlns="http://www.w3.org/2000/svg" style="x"/>'],
    ['event handler', '<svg xmlns="http://www.w3.org/2000/svg"><rect onclick="x"/></svg>'],
    ['xlink:href', '<svg xmlns="http://www.w3.org/2000/svg"><use xlink:href="#a"/></svg>'],
    ['image element', '<svg xmlns="http://www.w3.org/2000/svg"><image href="x"/></svg>'],
    ['CDATA', '<svg xmlns="http://www.w3.org/2000/svg"><title><![CDATA[x]]></title></svg>'],
    ['processing instruction', '<svg xmlns="http://www.w3.org/2000/svg"><?php x ?></svg>'],
    ['named entity', '<svg xmlns="http://www.w3.org/2000/svg"><title>&nbsp;</title></svg>'],
    ['DOCTYPE', '<!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['unquoted attribute', '<svg xmlns="http://www.w3.org/2000/svg" width=8/>'],
    ['duplicate attribute', '<svg xmlns="http://www.w3.org/2000/svg" width="1" width="2"/>'],
    ['mismatched tags', '<svg xmlns="http://www.w3.org/2000/svg"><g></rect></svg>'],
    ['two roots', '<svg xmlns="http://www.w3.org/2000/svg"/><svg/>'],
    ['other namespace', '<svg xmlns="http://www.w3.org/1999/xhtml"/>'],
    ['text outside title', '<svg xmlns="http://www.w3.org/2000/svg">hello</svg>'],
    ['deep nesting', '<svg>' + '<g>'.repeat(40) + '</g>'.repeat(40) + '</svg>'],
    ['invalid UTF-8', Buffer.from([0x3c, 0x73, 0x76, 0x67, 0xff, 0x2f, 0x3e])],
  ])('refuses %s', (_label, input) => {
    const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input);
    expect(sanitizeSvgLogo(bytes)).toBeNull();
    expect(sanitizeLogo(`data:image/svg+xml;base64,${bytes.toString('base64')}`)).toBeUndefined();
  });

  it('throws only SvgLogoError on malformed input', () => {
    for (const s of [
      '',
      '<',
      '<svg',
      '<svg a',
      '<svg a=',
      '<svg a="',
      '<svg><!--',
      '<svg>&',
      '<svg>&#xFFFFFF;</svg>',
    ]) {
      expect(() => parseSvgLogo(s)).toThrow(SvgLogoError);
    }
  });

  it('accepts raster logos by magic bytes only', () => {
    const jpeg = `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]).toString('base64')}`;
    const gif = `data:image/gif;base64,${Buffer.from('GIF89a\x01\x00\x01\x00').toString('base64')}`;
    const webp = `data:image/webp;base64,${Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ').toString('base64')}`;
    for (const ok of [jpeg, gif, webp]) expect(sanitizeLogo(ok)).toBe(ok);
    expect(sanitizeLogo(jpeg.replace('image/jpeg', 'image/gif'))).toBeUndefined();
    expect(
      sanitizeLogo(`data:image/webp;base64,${Buffer.from('RIFF\x00\x00\x00\x00AVI LIST').toString('base64')}`),
    ).toBeUndefined();
  });
});
