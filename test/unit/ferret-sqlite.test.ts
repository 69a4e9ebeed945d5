// infra/ferret-sqlite.ts (issue 22, session 14): the URL the stack gives FerretDB for its SQLite
// files carries `synchronous(normal)` unless SVC_STORE_SYNC=full, in the form FerretDB 1.24
// passes to its driver (`file:` + folder ending in `/`, `_pragma=name(value)` per pragma).
import { describe, expect, it } from 'vitest';
import { ferretPragmas, ferretSqliteUrl, storeSync } from '../../infra/ferret-sqlite.js';

describe('infra/ferret-sqlite.ts: how the embedded store opens its SQLite files', () => {
  it('the URL is the folder with a trailing slash and one _pragma per pragma', () => {
    expect(ferretSqliteUrl('/data/svc/ferretdb', 'normal')).toBe(
      'file:/data/svc/ferretdb/?_pragma=synchronous(normal)&_pragma=wal_autocheckpoint(100000)&_pragma=journal_size_limit(67108864)&_pragma=temp_store(memory)',
    );
    expect(ferretSqliteUrl('/data/svc/ferretdb/', 'full')).toBe(
      'file:/data/svc/ferretdb/?_pragma=synchronous(full)&_pragma=wal_autocheckpoint(100000)&_pragma=journal_size_limit(67108864)&_pragma=temp_store(memory)',
    );
    const u = new URL(ferretSqliteUrl('/data/svc/ferretdb', 'normal'));
    expect(u.protocol).toBe('file:');
    expect(u.pathname).toBe('/data/svc/ferretdb/');
    expect(u.searchParams.getAll('_pragma')).toEqual(ferretPragmas('normal'));
  });

  it('a folder with characters a URL escapes stays one path (FerretDB decodes it)', () => {
    const u = new URL(ferretSqliteUrl('/data/my store/#1', 'normal'));
    expect(decodeURIComponent(u.pathname)).toBe('/data/my store/#1/');
    expect(u.searchParams.getAll('_pragma')).toEqual([
      'synchronous(normal)',
      'wal_autocheckpoint(100000)',
      'journal_size_limit(67108864)',
      'temp_store(memory)',
    ]);
  });

  it('SVC_STORE_SYNC: unset or normal → normal, full → full, anything else refused', () => {
    expect(storeSync(undefined)).toBe('normal');
    expect(storeSync('')).toBe('normal');
    expect(storeSync('normal')).toBe('normal');
    expect(storeSync('full')).toBe('full');
    for (const bad of ['FULL', 'off', 'extra', 'normal;', '0'])
      expect(() => storeSync(bad)).toThrow(/SVC_STORE_SYNC must be "normal" or "full"/);
  });
});
