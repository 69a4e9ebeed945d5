// Black-box rows of issue 27 (the CLI as people expect from gh or the openai CLI): the `svc`
// CLI as its own process against the test stack. docs/cli.md.
import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiUrl, newTenant, PASSWORD, untilPostgresReady, type Member } from './helpers.js';
import { svc, SVC_BIN } from './cli-run.js';

let t: Member;
let dir: string;
const keyEnv = () => ({ SVC_API_KEY: t.key });
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const mathItems = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ query: `(a+${i})^2 = a^2 + ${2 * i}*a + ${i * i}`, type: 'math' }),
  ).join('\n');

beforeAll(async () => {
  t = await newTenant('enterprise');
  dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-ux-'));
});

describe('svc --version and completion', () => {
  it('--version prints the version, exit 0', async () => {
    for (const arg of ['--version', '-V', 'version']) {
      const r = await svc([arg]);
      expect(r.code, arg).toBe(0);
      expect(r.stdout, arg).toBe('svc 7.3.0\n');
    }
  });

  it('completion bash/zsh: scripts the shell accepts; another shell is a usage error', async () => {
    const bash = await svc(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -o default -F _svc svc');
    expect(bash.stdout).toMatch(/verify\) .*math logic code sql/);
    // bash parses it, and completing "svc ver" offers "verify".
    const probe = `${bash.stdout}\nCOMP_WORDS=(svc ver); COMP_CWORD=1; _svc; echo "\${COMPREPLY[@]}"`;
    expect(execFileSync('bash', ['-c', probe], { encoding: 'utf8' }).trim()).toBe('verify');
    const kinds = `${bash.stdout}\nCOMP_WORDS=(svc verify s); COMP_CWORD=2; _svc; echo "\${COMPREPLY[@]}"`;
    expect(execFileSync('bash', ['-c', kinds], { encoding: 'utf8' }).trim()).toBe('sql stats');
    const zsh = await svc(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout.startsWith('#compdef svc\n')).toBe(true);
    const fish = await svc(['completion', 'fish']);
    expect(fish.code).toBe(64);
    expect(fish.stderr).toMatch(/needs one shell: bash or zsh/);
  });
});

describe('svc verify', () => {
  it('code: the language comes from the file extension (bad.js is scanned as JavaScript)', async () => {
    const js = file('bad.js', 'const cp = require("child_process");\ncp.exec(process.argv[2]);\n');
    const r = await svc(['verify', 'code', js, '--json'], { env: keyEnv() });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { language: 'javascript', constraint_id: 'code_verifier.code_unsafe' },
    });
    const human = await svc(['verify', 'code', js], { env: keyEnv() });
    expect(human.stdout.split('\n')[0]).toBe('code: BLOCKED (proof: unsafe)');
    // --language still wins; an extension that names no language is a usage error, not a guess.
    const forced = await svc(['verify', 'code', js, '--language', 'python', '--json'], { env: keyEnv() });
    expect(JSON.parse(forced.stdout)).toMatchObject({
      status: 'BLOCKED',
      developer_fields: { constraint_id: 'code_verifier.does_not_parse_as_language' },
    });
    const odd = await svc(['verify', 'code', file('notes.txt', 'x = 1\n')], { env: keyEnv() });
    expect(odd.code).toBe(64);
    expect(odd.stderr).toMatch(/cannot tell the language of 'notes.txt' from its extension; pass --language/);
  });

  it('--verbose shows the workflow id (X-Workflow-Id)', async () => {
    const r = await svc(['verify', 'math', '2*(x+1) = 2*x+2', '-v'], { env: keyEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\n {2}workflow: \S+/);
    const plain = await svc(['verify', 'math', '2*(x+1) = 2*x+2'], { env: keyEnv() });
    expect(plain.stdout).not.toMatch(/workflow:/);
  });

  it('a claim the engine shows false reads FALSE; one it only evaluates stays UNVERIFIABLE; neither exits 0', async () => {
    const f = await svc(['verify', 'math', '2+2=5'], { env: keyEnv() });
    expect(f.code).toBe(1);
    expect(f.stdout.split('\n')[0]).toBe('math: FALSE (the sides differ by -1; status UNVERIFIABLE)');
    const e = await svc(['verify', 'math', '2^10 + 3*7'], { env: keyEnv() });
    expect(e.code).toBe(1);
    expect(e.stdout.split('\n')[0]).toBe('math: UNVERIFIABLE (not verified)');
  });

  it('SQL issues never say "line ?"', async () => {
    const r = await svc(['verify', 'sql', '-', '--schema-ddl', 'CREATE TABLE t (id INT);'], {
      env: keyEnv(),
      stdin: 'SELECT nope\nFROM t',
    });
    expect(r.stdout).toMatch(/issue: \[/);
    expect(r.stdout).not.toContain('line ?');
  });
});

describe('svc batch output', () => {
  const items = () =>
    file(
      'items.jsonl',
      [
        JSON.stringify({ query: '(a+b)^2 = a^2+2*a*b+b^2', type: 'math' }),
        JSON.stringify({ query: '2*x = x', type: 'math' }),
        JSON.stringify({ query: 'import os\nos.system("rm -rf /")', type: 'code', params: { language: 'python' } }),
      ].join('\n'),
    );

  it('on stdout: a readable per-item table (admission first), then the summary; no JSON', async () => {
    const r = await svc(['batch', items(), '--no-progress', '--poll-ms', '200'], { env: keyEnv() });
    expect(r.code).toBe(2);
    const lines = r.stdout.trimEnd().split('\n');
    const cells = lines.map((l) => l.split(/ {2,}/));
    expect(cells[0]).toEqual(['LINE', 'OUTCOME', 'VERDICT', 'TYPE', 'QUERY']);
    expect(cells[1]).toEqual(['1', 'verified', 'VERIFIED (verified)', 'math', '(a+b)^2 = a^2+2*a*b+b^2']);
    expect(cells[2]).toEqual(['2', 'not verified', 'UNVERIFIABLE (not verified)', 'math', '2*x = x']);
    expect(cells[3]).toEqual(['3', 'BLOCKED', 'BLOCKED (proof: unsafe)', 'code', 'import os os.system("rm -rf /")']);
    // Columns line up: every row's VERDICT starts where the header's does.
    for (const l of lines.slice(1, 4))
      expect(l.indexOf(l.split(/ {2,}/)[2] as string)).toBe(lines[0]!.indexOf('VERDICT'));
    expect(lines[4]).toBe('3 items: 1 verified, 1 not verified, 1 blocked, 0 error');
    expect(r.stdout).not.toContain('{');
  });

  it('--json prints ONE JSON document; --jsonl one object per line (summary on stderr)', async () => {
    const j = await svc(['batch', items(), '--json', '--no-progress', '--poll-ms', '200'], { env: keyEnv() });
    const doc = JSON.parse(j.stdout);
    expect(doc.summary).toEqual({ total: 3, verified: 1, not_verified: 1, blocked: 1, error: 0 });
    expect(doc.items.map((i: any) => [i.line, i.outcome])).toEqual([
      [1, 'verified'],
      [2, 'not_verified'],
      [3, 'blocked'],
    ]);
    const l = await svc(['batch', items(), '--jsonl', '--no-progress', '--poll-ms', '200'], { env: keyEnv() });
    const rows = l.stdout
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x));
    expect(rows.map((x) => x.outcome)).toEqual(['verified', 'not_verified', 'blocked']);
    expect(l.stderr).toContain('3 items: 1 verified, 1 not verified, 1 blocked, 0 error');
    const both = await svc(['batch', items(), '--jsonl', '--json'], { env: keyEnv() });
    expect(both.code).toBe(64);
  });

  it('on a terminal, the progress bar is cleared before the results (no shared line, wrapping left alone)', async () => {
    // script(1) gives the CLI a real pseudo-terminal for stdout and stderr.
    const cmd = [process.execPath, SVC_BIN, 'batch', items(), '--poll-ms', '200']
      .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
      .join(' ');
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir, SVC_BASE_URL: apiUrl(), SVC_API_KEY: t.key, TERM: 'xterm' },
      timeout: 120_000,
      input: '',
    });
    expect(r.status).toBe(2);
    const out = r.stdout;
    expect(out).toContain('batch [');
    // Line wrapping is never switched off (ESC[?7l) by the bar.
    expect(out).not.toContain('\x1b[?7l');
    // The table starts on a line of its own, after the bar was cleared.
    const headerAt = out.indexOf('LINE  OUTCOME');
    expect(headerAt).toBeGreaterThan(out.lastIndexOf('batch ['));
    // What the terminal shows before the header on its line: the text after the last erase-line.
    const seg = out.slice(out.lastIndexOf('\n', headerAt) + 1, headerAt);
    const cleared = seg.lastIndexOf('\x1b[2K');
    const shown = (cleared >= 0 ? seg.slice(cleared + 4) : seg)
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .replace(/\r/g, '');
    expect(shown).toBe('');
    expect(out).toContain('3 items: 1 verified, 1 not verified, 1 blocked, 0 error');
  });

  it('a batch larger than the free plan allows is split to the size its 400 names', async () => {
    const free = await newTenant('free');
    const r = await svc(['batch', file('twelve.jsonl', mathItems(12)), '--json', '--no-progress', '--poll-ms', '500'], {
      env: { SVC_API_KEY: free.key },
    });
    expect(r.stderr).toContain('svc: the plan takes at most 10 items per batch; sending chunks of 10');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.summary).toMatchObject({ total: 12, verified: 12 });
    expect(doc.items.map((i: any) => i.line)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(new Set(doc.items.map((i: any) => i.job_id)).size).toBe(2);
  });
});

describe('svc login', () => {
  it('signs in with the password on stdin, stores the token 0600, and keys list works without pasting tokens', async () => {
    const cfgDir = path.join(mkdtempSync(path.join(tmpdir(), 'svc-login-')), 'svc');
    const env = { SVC_CONFIG_DIR: cfgDir };
    const r = await svc(['login', '--email', t.email, '--password-stdin'], { env, stdin: `${PASSWORD}\n` });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^stored the access token of ${t.email.replace(/[.+]/g, '\\$&')} \\(expires \\d{4}-.*\\) in .*config\\.json \\(mode 600\\)\\n$`,
      ),
    );
    const cfgFile = path.join(cfgDir, 'config.json');
    expect(statSync(cfgFile).mode & 0o777).toBe(0o600);
    expect(statSync(cfgDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(cfgFile, 'utf8')).not.toContain(PASSWORD);

    const list = await svc(['keys', 'list'], { env });
    expect(list.code).toBe(0);
    const rows = list.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID +NAME +PREVIEW +CREATED +EXPIRES +SCOPES$/);
    expect(rows.some((row) => row.startsWith(t.keyId))).toBe(true);
    expect(list.stdout).not.toContain(t.key);

    const status = await svc(['login', '--status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({
      email: t.email,
      access_token: expect.stringMatching(/^expires /),
      api_key: null,
    });

    // A config file others can read is not used (and says why).
    chmodSync(cfgFile, 0o644);
    const refused = await svc(['keys', 'list'], { env });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toMatch(/ignoring .*config\.json: it is readable by other users/);
    chmodSync(cfgFile, 0o600);

    const out = await svc(['logout'], { env });
    expect(out.stdout).toBe(`removed ${cfgFile}\n`);
    expect(existsSync(cfgFile)).toBe(false);
    expect((await svc(['keys', 'list'], { env })).code).toBe(64);
  });

  it('--token is checked before it is stored; --api-key is used by verify', async () => {
    const env = { SVC_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), 'svc-login-')) };
    const bad = await svc(['login', '--token', 'not.a.jwt'], { env });
    expect(bad.code).toBe(77);
    expect(existsSync(path.join(env.SVC_CONFIG_DIR, 'config.json'))).toBe(false);
    const good = await svc(['login', '--token', t.token, '--api-key', t.key], { env });
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^stored the access token of .* and API key in /);
    const math = await svc(['verify', 'math', '1+1 = 2'], { env });
    expect(math.code).toBe(0);
    const wrong = await svc(['login', '--email', t.email, '--password-stdin'], { env, stdin: 'wrong password\n' });
    expect(wrong.code).toBe(77);
    const noPassword = await svc(['login', '--email', t.email], { env });
    expect(noPassword.code).toBe(64);
  });
});

describe('SQL issue positions', () => {
  it('a PostgreSQL refusal names the line of its cursor position', async () => {
    await untilPostgresReady(t.key); // PGlite starts on the worker's first postgresql request
    const r = await svc(
      ['verify', 'sql', '-', '--schema-ddl', 'CREATE TABLE t (id INT);', '--dialect', 'postgres', '--json'],
      { env: keyEnv(), stdin: 'SELECT id\nFROM t\nWHERE nope = 1' },
    );
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ status: 'VERIFIED', admission: 'BLOCKED' });
    expect(body.developer_fields.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ source: 'postgres', sqlstate: '42703', line_number: 3 })]),
    );
    const human = await svc(
      ['verify', 'sql', '-', '--schema-ddl', 'CREATE TABLE t (id INT);', '--dialect', 'postgres'],
      { env: keyEnv(), stdin: 'SELECT id\nFROM t\nWHERE nope = 1' },
    );
    expect(human.stdout).toMatch(/issue: \[error\] line 3: PostgreSQL: column "nope" does not exist/);
  }, 300_000);
});
