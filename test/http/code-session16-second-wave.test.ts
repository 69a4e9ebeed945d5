// Issue 24 (code scan), session 16, second wave, black-box rows through the real stack:
// pickle.loads of an exact base64 / hex decoding of a constant (admitted when the decoded
// opcodes import and call nothing, or when the decoding raises before pickle is called; blocked
// otherwise); `new SpelView(template)` with placeholders (dynamic code at the construction);
// a sink whose receiver or callee is a local name names the lines that bind it. Bad input refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

/** A view whose `bar` is a constant only along its path (a configparser value), with local imports. */
const VIEW = (value: string, sink: string) =>
  `from flask import request\n\ndef view():\n    param = request.args.get("p")\n    import configparser\n    conf = configparser.ConfigParser()\n    conf.add_section('s')\n    conf.set('s', 'a', '${value}')\n    conf.set('s', 'b', param)\n    bar = conf.get('s', 'a')\n    import pickle\n    import base64\n    return pickle.loads(${sink})\n`;
const SPEL = (ctor: string) =>
  `import org.springframework.web.servlet.ModelAndView;\nimport javax.servlet.http.HttpServletRequest;\nimport java.util.Map;\n\nclass Errors {\n    private static final String T = "<p>\${error.message}</p>";\n    ModelAndView error(HttpServletRequest request, Map<String, Object> att) {\n        ModelAndView m = new ModelAndView(${ctor});\n        m.addObject("error", att);\n        return m;\n    }\n}\n`;

describe('POST /verify/code: decoded constants, SpelView, binding lines (issue 24, session 16, second wave)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'python',
      'base64 of a plain-data pickle',
      VIEW('gAN9cQBYAQAAAGFxAV1xAihLAVgBAAAAeHEDZXMu', 'base64.urlsafe_b64decode(bar)'),
    ],
    ['python', 'a base64 decoding that raises', VIEW('a_Value', 'base64.urlsafe_b64decode(bar)')],
    [
      'python',
      'a match on a constant subject choosing a decoding that raises',
      'from flask import request\nimport pickle, base64\n\ndef view():\n    param = request.args.get("p")\n    guess = "ABC"[1]\n    match guess:\n        case "A":\n            bar = param\n        case "B":\n            bar = "bob"\n        case _:\n            bar = param\n    return pickle.loads(base64.urlsafe_b64decode(bar))\n',
    ],
    ['java', 'an ordinary Spring view', SPEL('"error", att')],
    ['java', 'a SpelView without placeholders', SPEL('new SpelView("<p>static</p>")')],
  ])('%s: %s is admitted', async (language, _name, code) => {
    expectAdmitted(await verify({ code, language }));
  });

  it.each([
    [
      'python',
      'base64 of a GLOBAL/REDUCE pickle',
      VIEW('Y29zCnN5c3RlbQooUydpZCcKdFIu', 'base64.urlsafe_b64decode(bar)'),
      13,
      'unsafe_deserialization',
      /pickle\.loads/,
    ],
    [
      'python',
      'base64 of request data',
      VIEW('x', 'base64.urlsafe_b64decode(param)'),
      13,
      'unsafe_deserialization',
      /pickle\.loads; input from line 4/,
    ],
    [
      'python',
      'a match arm holding request data',
      'from flask import request\nimport pickle, base64\n\ndef view():\n    param = request.args.get("p")\n    guess = "ABC"[0]\n    match guess:\n        case "A":\n            bar = param\n        case _:\n            bar = "bob"\n    return pickle.loads(base64.urlsafe_b64decode(bar))\n',
      12,
      'unsafe_deserialization',
      /pickle\.loads/,
    ],
    ['java', 'a SpelView with placeholders', SPEL('new SpelView(T)'), 8, 'dynamic_code_execution', /SpelView/],
    [
      'python',
      'a receiver bound above the sink',
      'import multiprocessing.connection\n\nconn = multiprocessing.connection.Client(\n    ("localhost", 6000),\n)\nrx = conn.recv()\n',
      6,
      'unsafe_deserialization',
      /receiver bound on line 3$/,
    ],
    [
      'python',
      'a callee bound through getattr',
      'from somewhere import something\nm = __import__("os")\nrun = getattr(m, "system")\nrun(something())\n',
      4,
      'shell_execution',
      /callee bound on lines 2, 3$/,
    ],
  ] as Array<[string, string, string, number, string, RegExp]>)(
    '%s: %s is VERIFIED unsafe and not admitted',
    async (language, _name, code, line, type, description) => {
      expectBlockedAt(await verify({ code, language }), line, type, description);
    },
  );

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: ['pickle.loads(base64.b64decode("QQ=="))'], language: 'python' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
