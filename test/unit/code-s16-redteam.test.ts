// Issue 24, session 16 (red team for generalisation): the variants of
// test/unit/code-s16-redteam-variants.ts (the three families in every language the scanner
// covers, written to evade: aliases, reflection, dispatch tables, method references, decoded
// names, quoting). Every dangerous variant must get a critical finding of one of the three kinds
// on one of its marked lines; every control must be admitted. FIXED_THIS_SESSION lists the
// variants admitted on the base commit (12a58ee): those rows fail without this session's change.
// LEFT_ALONE lists the variants still admitted on purpose (docs/code-scanner.md "Session 16, red team").
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';
import { REDTEAM, type RedTeamVariant } from './code-s16-redteam-variants.js';

const KINDS = new Set(['shell_execution', 'dynamic_code_execution', 'unsafe_deserialization']);

/** Admitted on 12a58ee (57 of 282 dangerous variants, 3 of them left alone); each is blocked now. */
const FIXED_THIS_SESSION = new Set(
  (
    'py-methodcaller py-vars-os py-pdb-run py-cprofile-run py-sourcefileloader py-unpickler-subclass ' +
    'js-arrow-constructor js-async-fn-constructor js-mainmodule-load js-computed-member js-destructure-globalthis js-reflect-get ' +
    'java-method-ref-exec java-reflection-exec java-reflection-concat java-ois-subclass java-methodhandle ' +
    'go-dispatch-map go-cmd-fields go-reflect-call ' +
    'rb-dispatch-hash rb-const-get-kernel rb-method-to-proc rb-instance-method-bind rb-const-get-open3 ' +
    'php-reflection-function php-dispatch-array php-strrev-name php-base64-name php-ob-start php-include-data php-phar-exists ' +
    'cs-reflection-process cs-typeof-reflection cs-xamlreader cs-datacontract-type ' +
    'sh-source-procsub sh-dot-stdin sh-default-expansion sh-command-subst sh-ansi-c-eval sh-backslash-eval sh-quoted-eval ' +
    'sh-trap sh-bash-procsub sh-su-c sh-shell-var-c sh-flock-c sh-source-heredoc sh-exec-shell-c sh-shell-default ' +
    'php-preg-callback-request php-ob-start-request sh-printf-v'
  ).split(' '),
);
/** Still admitted, with the reason in docs/code-scanner.md. */
const LEFT_ALONE = new Set(['java-supplier-runtime', 'sh-array-command', 'php-unknown-var-function']);

async function verdict(v: RedTeamVariant): Promise<{ admitted: boolean; onLine: boolean; why: string }> {
  const out = await scanCode(v.code, v.language);
  const f = out.developerFields as { issues?: Issue[]; is_valid?: boolean; constraint_id?: string };
  // A row that does not parse would be blocked for the wrong reason: each row must parse.
  expect(f.constraint_id, v.id).not.toBe('code_verifier.does_not_parse_as_language');
  const critical = (f.issues ?? []).filter((i) => i.severity === 'critical' && KINDS.has(i.type));
  return {
    admitted: f.is_valid === true,
    onLine: critical.some((i) => v.lines.includes(i.line_number)),
    why: critical.map((i) => `${i.type}@${i.line_number}: ${i.description}`).join(' | ') || 'no critical finding',
  };
}

describe('issue 24, session 16: red team variants in every language', () => {
  it('the table covers every language, the three kinds and controls', () => {
    expect([...new Set(REDTEAM.map((v) => v.language))].sort()).toEqual([
      'bash',
      'csharp',
      'go',
      'java',
      'javascript',
      'php',
      'python',
      'ruby',
      'typescript',
    ]);
    for (const kind of [...KINDS, 'safe']) expect(REDTEAM.some((v) => v.type === kind)).toBe(true);
    const ids = REDTEAM.map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [...FIXED_THIS_SESSION, ...LEFT_ALONE]) expect(ids).toContain(id);
    expect(REDTEAM.filter((v) => v.type !== 'safe').length).toBe(282);
  });

  it.each(REDTEAM.filter((v) => v.type !== 'safe' && !LEFT_ALONE.has(v.id)).map((v) => [v.id, v] as const))(
    '%s is blocked with a critical finding on its line',
    async (_id, v) => {
      const r = await verdict(v);
      expect(r.admitted, `${v.id}: ${r.why}`).toBe(false);
      expect(r.onLine, `${v.id} wants line ${v.lines.join(' or ')}: ${r.why}`).toBe(true);
    },
  );

  it.each(REDTEAM.filter((v) => v.type === 'safe').map((v) => [v.id, v] as const))('%s is admitted', async (_id, v) => {
    const r = await verdict(v);
    expect(r.admitted, `${v.id}: ${r.why}`).toBe(true);
  });
});
