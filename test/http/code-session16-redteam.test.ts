// Issue 24 (code scan), session 16, black-box rows for the red team's evasions: one or more per
// family (process execution, code execution, unsafe deserialization) and language, each admitted
// on the base commit 12a58ee and now VERIFIED unsafe with its finding on the line; the controls
// beside the fixes stay admitted; bad input is refused. The snippets are the unit table's
// (test/unit/code-s16-redteam-variants.ts), sent through the real API, Temporal and store.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';
import { REDTEAM } from '../unit/code-s16-redteam-variants.js';

const variant = (id: string) => {
  const v = REDTEAM.find((x) => x.id === id);
  if (!v) throw new Error(`no variant ${id}`);
  return v;
};

describe('POST /verify/code: red team evasions (issue 24, session 16)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    ['sh-quoted-eval', 2, 'dynamic_code_execution', /^eval of shell text: eval$/],
    ['sh-su-c', 2, 'dynamic_code_execution', /sh -c of computed code/],
    ['sh-source-procsub', 2, 'dynamic_code_execution', /sourced into the shell.*source of the script's input/],
    [
      'java-method-ref-exec',
      4,
      'shell_execution',
      /callable is passed on as a value.*java\.lang\.Runtime\.getRuntime\(\)\.exec/,
    ],
    ['java-reflection-exec', 4, 'dynamic_code_execution', /reached by reflection \(fail closed\)/],
    ['java-ois-subclass', 7, 'unsafe_deserialization', /ObjectInputStream subclass/],
    ['py-pdb-run', 3, 'dynamic_code_execution', /Debugger or profiler given code built at run time.*pdb\.run/],
    ['py-unpickler-subclass', 5, 'unsafe_deserialization', /pickle\.Unpickler/],
    ['js-arrow-constructor', 2, 'dynamic_code_execution', /Function constructor \(dynamic code\): Function/],
    ['js-computed-member', 3, 'shell_execution', /child_process\.\?/],
    ['go-dispatch-map', 3, 'shell_execution', /callable is passed on as a value.*os\/exec\.Command/],
    ['rb-dispatch-hash', 1, 'shell_execution', /callable is passed on as a value.*Kernel\.spawn/],
    ['php-strrev-name', 4, 'dynamic_code_execution', /name decoded at run time/],
    ['php-phar-exists', 2, 'unsafe_deserialization', /phar:\/\/ path built at run time.*file_exists/],
    ['cs-xamlreader', 4, 'unsafe_deserialization', /XAML parsed.*XamlReader\.Parse/],
    [
      'cs-reflection-process',
      4,
      'dynamic_code_execution',
      /reached by reflection \(fail closed\): System\.Type\.GetType/,
    ],
  ] as Array<[string, number, string, RegExp]>)(
    '%s is VERIFIED unsafe and not admitted',
    async (id, line, type, description) => {
      const v = variant(id);
      expect(v.lines).toContain(line);
      const res = await verify({ code: v.code, language: v.language });
      expectBlockedAt(res, line, type, description);
    },
  );

  it.each([
    'sh-safe-trap',
    'sh-safe-su-constant',
    'java-safe-method-ref',
    'py-safe-restricted-unpickler',
    'js-safe-computed-path',
    'php-safe-dispatch',
    'cs-safe-gettype-constant',
    'rb-safe-method-puts',
  ])('%s is admitted', async (id) => {
    const v = variant(id);
    const res = await verify({ code: v.code, language: v.language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: ['system'], language: 'php' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
