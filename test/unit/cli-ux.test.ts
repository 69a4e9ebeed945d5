// Unit rows of issue 27 (the CLI): the pure pieces behind the black-box rows of
// test/http/cli-ux.test.ts and test/http/admission-surfaces.test.ts.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { languageFor } from '../../client/cli/main.js';
import { planBatchLimit, resultTable } from '../../client/cli/batch.js';
import { excerpt, headline, humanVerdict, table } from '../../client/cli/output.js';
import { configPath, readConfig, writeConfig } from '../../client/cli/config.js';
import { SvcApiError } from '../../client/http.js';
import { lineAt } from '../../engines/sql/pg-check.js';
import { planBatchDetail } from '../../contract/batch.js';

describe('verdict lines lead with the admission', () => {
  it('code/SQL: BLOCKED (proof: unsafe) / ADMIT (proof: safe) / not proven; others keep status (outcome)', () => {
    expect(headline('code', { status: 'VERIFIED', admission: 'BLOCKED' }, 'blocked')).toBe(
      'code: BLOCKED (proof: unsafe)',
    );
    expect(headline('code', { status: 'VERIFIED', admission: 'ADMIT' }, 'verified')).toBe('code: ADMIT (proof: safe)');
    expect(headline('sql', { status: 'VERIFIED', admission: 'BLOCKED' }, 'blocked')).toBe(
      'sql: BLOCKED (proof: rejected)',
    );
    expect(headline('code', { status: 'UNVERIFIABLE', admission: 'BLOCKED' }, 'blocked')).toBe(
      'code: BLOCKED (not proven: UNVERIFIABLE)',
    );
    expect(headline('math', { status: 'VERIFIED', proof_ref: 'sha256:x' }, 'verified')).toBe(
      'math: VERIFIED (verified)',
    );
    // A claim the engine showed false reads "false" (issue 27 point 9); a float or tolerance comparison never does.
    expect(
      headline(
        'math',
        { status: 'UNVERIFIABLE', is_valid: false, method: 'canonical_form', simplified_difference: '-1' },
        'not_verified',
      ),
    ).toBe('math: FALSE (the sides differ by -1; status UNVERIFIABLE)');
    expect(
      headline(
        'math',
        { status: 'UNVERIFIABLE', is_valid: false, method: 'tolerance_comparison', simplified_difference: '0.5' },
        'not_verified',
      ),
    ).toBe('math: UNVERIFIABLE (not verified)');
    expect(headline('math', { status: 'UNVERIFIABLE', is_valid: true, value: 4 }, 'not_verified')).toBe(
      'math: UNVERIFIABLE (not verified)',
    );
  });

  it('issues show a line only where the engine gives one; --verbose adds the workflow', () => {
    const text = humanVerdict(
      'sql',
      {
        status: 'VERIFIED',
        admission: 'BLOCKED',
        developer_fields: {
          issues: [
            { severity: 'error', description: 'a' },
            { severity: 'error', line_number: 3, description: 'b' },
          ],
        },
      },
      'blocked',
      { workflowId: 'wf-1' },
    );
    expect(text).toContain('  issue: [error]: a');
    expect(text).toContain('  issue: [error] line 3: b');
    expect(text).not.toContain('line ?');
    expect(text).toContain('  workflow: wf-1');
  });
});

describe('language from the file extension', () => {
  it.each([
    ['bad.js', 'javascript'],
    ['x.MJS', 'javascript'],
    ['a/b/c.py', 'python'],
    ['t.ts', 'typescript'],
    ['c.tsx', 'tsx'],
    ['s.sh', 'bash'],
    ['m.go', 'go'],
    ['J.java', 'java'],
    ['r.rb', 'ruby'],
    ['p.php', 'php'],
    ['-', 'python'],
  ])('%s → %s', (file, lang) => expect(languageFor(file, undefined)).toBe(lang));
  it('--language wins; an unknown extension is a usage error', () => {
    expect(languageFor('bad.js', 'python')).toBe('python');
    expect(() => languageFor('notes.txt', undefined)).toThrow(/cannot tell the language of 'notes.txt'/);
    expect(() => languageFor('Makefile', undefined)).toThrow(/pass --language/);
  });
});

describe('batch', () => {
  it("the plan's batch size is read from the service's 400 only", () => {
    expect(planBatchLimit(new SvcApiError(400, planBatchDetail(12, 'free', 10), {}))).toBe(10);
    expect(planBatchLimit(new SvcApiError(400, 'Invalid field items', {}))).toBeNull();
    expect(planBatchLimit(new SvcApiError(429, planBatchDetail(12, 'free', 10), {}))).toBeNull();
    expect(planBatchLimit(new Error(planBatchDetail(12, 'free', 10)))).toBeNull();
  });

  it('the table aligns columns and shows one line per item', () => {
    const t = resultTable([
      {
        line: 1,
        job_id: 'j',
        outcome: 'blocked',
        type: 'code',
        status: 'completed',
        query: 'import os\nos.system("x")',
        result: { status: 'VERIFIED', admission: 'BLOCKED' },
      },
      { line: 12, job_id: 'j', outcome: 'error', type: 'math', status: 'failed', query: 'x', error: 'engine failed' },
    ]);
    expect(t.split('\n')).toEqual([
      'LINE  OUTCOME  VERDICT                  TYPE  QUERY',
      '1     BLOCKED  BLOCKED (proof: unsafe)  code  import os os.system("x")',
      '12    error    failed: engine failed    math  x',
    ]);
    expect(
      table([
        ['A', 'B'],
        ['long', ''],
      ]),
    ).toBe('A     B\nlong');
    expect(excerpt('a'.repeat(60), 10)).toBe(`${'a'.repeat(9)}\u2026`);
  });
});

describe('svc login storage', () => {
  it('written 0600 in a 0700 directory; a file others can read is ignored with a warning', () => {
    const env = { SVC_CONFIG_DIR: path.join(mkdtempSync(path.join(tmpdir(), 'svc-cfg-')), 'nested') };
    const file = writeConfig(env, { access_token: 'a.b.c', email: 'x@example.test' });
    expect(file).toBe(configPath(env));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const warnings: string[] = [];
    expect(readConfig(env, (w) => warnings.push(w))).toEqual({
      access_token: 'a.b.c',
      email: 'x@example.test',
      api_key: undefined,
      base_url: undefined,
    });
    chmodSync(file, 0o640);
    expect(readConfig(env, (w) => warnings.push(w))).toEqual({});
    expect(warnings[0]).toMatch(/readable by other users/);
    // Rewriting an existing, too-open file makes it 0600 again.
    writeConfig(env, { api_key: 'svc_live_x' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, '[1]', { mode: 0o600 });
    expect(() => readConfig(env, () => undefined)).toThrow(/is not a JSON object/);
  });

  it('the default location follows XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/svc/config.json');
    expect(configPath({ HOME: '/home/u' })).toBe('/home/u/.config/svc/config.json');
  });
});

describe('SQL positions', () => {
  it('lineAt: the 1-based line of a 1-based character position', () => {
    const q = 'SELECT id\nFROM t\nWHERE nope = 1';
    expect(lineAt(q, 1)).toBe(1);
    expect(lineAt(q, q.indexOf('nope') + 1)).toBe(3);
    expect(lineAt(q, q.indexOf('FROM') + 1)).toBe(2);
    // Characters, not UTF-16 units: an emoji on line 1 does not shift the count.
    expect(lineAt('SELECT \u{1F600}\nx', 10)).toBe(2);
  });
});
