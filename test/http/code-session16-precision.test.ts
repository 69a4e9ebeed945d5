// Issue 24 (code scan), session 16, black-box rows for precision on the suites' safe lines:
// shapes that were blocked as a choice to fail closed and are now decided exactly, each beside
// the evasion that must stay blocked. An eval of a name an `if x == 'a' or x == 'b'` guard
// narrowed; jsonpickle.decode of a constant text in which no tag can appear; pickle.loads of a
// bytes literal whose opcodes import and call nothing; PHP unserialize of a literal without
// object entries; a call of a member the marshal module does not have. Bad input refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

const GUARDED = (test: string, constant: string) =>
  `from flask import request\n\ndef view():\n    foo = 1\n    name = request.args.get("n")\n    if name == "foo" ${test} name == ${constant}:\n        print(eval(name))\n`;

describe('POST /verify/code: exact decisions instead of fail-closed choices (issue 24, session 16)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    ['python', 'an eval of a name narrowed to two constant codes', GUARDED('or', '"bar"')],
    [
      'python',
      'jsonpickle.decode of a constant without tags',
      "import jsonpickle\nobj = jsonpickle.decode('foobar')\n",
    ],
    [
      'python',
      'pickle.loads of a plain-data bytes literal',
      'import pickle\nd = pickle.loads(b"(lp0\\nI1\\naI2\\na.")\n',
    ],
    [
      'python',
      'a member marshal does not have',
      "import marshal\nfor line in open('x'):\n    marshal.someokfunc(line)\n",
    ],
    ['php', 'unserialize of an array literal', '<?php\n$a = unserialize(\'a:1:{i:0;s:1:"x";}\');\n'],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it.each([
    [
      'python',
      'a narrowed constant that runs a command',
      GUARDED('or', "\"__import__('os').system('id')\""),
      7,
      'dynamic_code_execution',
      /os\.system/,
    ],
    ['python', 'a guard joined with and', GUARDED('and', '"bar"'), 7, 'dynamic_code_execution', /builtins\.eval/],
    [
      'python',
      'a jsonpickle py/object tag',
      'import jsonpickle\no = jsonpickle.decode(\'{"py/object": "os.system"}\')\n',
      2,
      'unsafe_deserialization',
      /jsonpickle\.decode/,
    ],
    [
      'python',
      'a pickle GLOBAL and REDUCE',
      'import pickle\npickle.loads(b"cos\\nsystem\\n(S\'id\'\\ntR.")\n',
      2,
      'unsafe_deserialization',
      /pickle\.loads/,
    ],
    [
      'python',
      'a marshal member the snippet adds',
      'import marshal, pickle\nmarshal.x = pickle.loads\nmarshal.x(blob)\n',
      3,
      'unsafe_deserialization',
      /cannot classify/,
    ],
    [
      'php',
      'unserialize of an object entry',
      '<?php\n$o = unserialize(\'O:1:"a":0:{}\');\n',
      2,
      'unsafe_deserialization',
      /unserialize/,
    ],
  ] as Array<[string, string, string, number, string, RegExp]>)(
    '%s: %s is VERIFIED unsafe and not admitted',
    async (language, _name, code, line, type, description) => {
      const res = await verify({ code, language });
      expectBlockedAt(res, line, type, description);
    },
  );

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: { text: 'pickle.loads(b".")' }, language: 'python' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
