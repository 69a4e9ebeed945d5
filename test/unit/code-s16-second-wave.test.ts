// Issue 24, session 16, second wave (helper H):
//  - pickle.loads of an exact base64 / hex decoding of a constant (payload-decode.ts): the decoded
//    bytes are walked by payload-pickle.ts, and a decoding that certainly raises never reaches
//    pickle. Imports of standard-library modules, and of modules the file's own top-level
//    statements imported before, no longer make the path analysis forget its constants.
//  - `new SpelView(template)` (Spring Boot 1.x / Spring Security OAuth's SpEL-rendering view) with
//    placeholders or a computed template is dynamic code unless the snippet defines SpelView.
//  - a sink whose callee or receiver is a local name names the lines that bind it.
// Written on our own snippets, never a suite's text.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';
import { decodeExact } from '../../engines/code/analyzers/payload-decode.js';

const scan = async (code: string, language: string) => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string };
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  return fields;
};
const critical = async (code: string, language: string): Promise<Issue[]> =>
  ((await scan(code, language)).issues ?? []).filter((i) => i.severity === 'critical');

/** A Flask view whose `bar` is a constant only along its path, with function-local imports. */
const VIEW = (setup: string, sink: string, imports = 'import pickle\n    import base64\n    import binascii') =>
  `from flask import request\nimport helpers.utils\n\ndef view():\n    param = request.args.get("p")\n    bar = param\n${setup}\n    ${imports}\n    import helpers.utils\n    helpers.utils.shared = "x"\n    try:\n        return pickle.loads(${sink})\n    except Exception:\n        return None\n`;
const CFG = (value: string) =>
  `    import configparser\n    conf = configparser.ConfigParser()\n    conf.add_section('s')\n    conf.set('s', 'a', ${JSON.stringify(value)})\n    conf.set('s', 'b', param)\n    bar = conf.get('s', 'a')`;
/** pickle.dumps({'a': [1, 'x']}, 3): plain data. */
const DATA_B64 = 'gAN9cQBYAQAAAGFxAV1xAihLAVgBAAAAeHEDZXMu';
const DATA_HEX = '80037d710058010000006171015d7102284b01580100000078710365732e';
/** cos\nsystem\n(S'id'\ntR. : os.system('id'). */
const EVIL_B64 = 'Y29zCnN5c3RlbQooUydpZCcKdFIu';
const EVIL_HEX = '636F730A73797374656D0A2853276964270A74522E';

describe('issue 24, session 16, second wave: pickle of an exact decoding of a constant', () => {
  it.each([
    [
      'base64 of a plain-data pickle literal',
      `import pickle, base64\nd = pickle.loads(base64.b64decode('${DATA_B64}'))\n`,
    ],
    ['urlsafe base64 through a configparser constant', VIEW(CFG(DATA_B64), 'base64.urlsafe_b64decode(bar)')],
    ['a decoding that raises (bits left over)', VIEW(CFG('a_Value'), 'base64.urlsafe_b64decode(bar)')],
    [
      'a decoding that raises, through a dict',
      VIEW("    m = {'k': 'a-Value', 'p': param}\n    bar = m['k']", 'base64.urlsafe_b64decode(bar)'),
    ],
    ['hex of a plain-data pickle', VIEW(`    bar = '${DATA_HEX}'`, 'binascii.unhexlify(bar)')],
    ['b16decode of lower-case hex raises', VIEW(`    bar = '${DATA_HEX}'`, 'base64.b16decode(bar)')],
    [
      'a match statement on a constant subject',
      VIEW(
        "    guess = 'ABC'[1]\n    match guess:\n        case 'A':\n            bar = param\n        case 'B':\n            bar = 'bob'\n        case 'C' | 'D':\n            bar = param\n        case _:\n            bar = param",
        'base64.urlsafe_b64decode(bar)',
      ),
    ],
    [
      'the decoder imported by name',
      `from base64 import standard_b64decode as d\nimport pickle\nx = pickle.loads(d('${DATA_B64}'))\n`,
    ],
  ])('%s is admitted', async (_name, code) => {
    expect(await critical(code, 'python')).toEqual([]);
  });

  it.each([
    ['base64 of a GLOBAL/REDUCE pickle', VIEW(CFG(EVIL_B64), 'base64.urlsafe_b64decode(bar)')],
    ['hex of a GLOBAL/REDUCE pickle', VIEW(`    bar = '${EVIL_HEX}'`, 'base64.b16decode(bar)')],
    ['request data', VIEW('', 'base64.urlsafe_b64decode(bar)')],
    ['one arm request data', VIEW("    if param:\n        bar = 'bob'", 'base64.urlsafe_b64decode(bar)')],
    ['characters the decoder skips', VIEW("    bar = 'bob\\'s your uncle'", 'base64.urlsafe_b64decode(bar)')],
    ['padding in the middle', VIEW("    bar = 'QQ==QUJD'", 'base64.b64decode(bar)')],
    ['a decoding to an opcode unknown today', VIEW("    bar = 'moresafe'", 'base64.b64decode(bar)')],
    ['altchars given', VIEW(`    bar = '${DATA_B64}'`, "base64.b64decode(bar, b'-_')")],
    ['a keyword given', VIEW(`    bar = '${DATA_B64}'`, 'base64.b64decode(bar, validate=True)')],
    [
      'an unknown module imported after the constant',
      VIEW(CFG('a_Value'), 'base64.urlsafe_b64decode(bar)', 'import pickle\n    import base64\n    import plugin'),
    ],
    [
      'a module the file imports only after the function',
      VIEW(CFG('a_Value'), 'base64.urlsafe_b64decode(bar)', 'import pickle\n    import base64\n    import late') +
        'import late\n',
    ],
    [
      'base64 rebound',
      VIEW(`    bar = '${DATA_B64}'\n    base64 = helpers.utils`, 'base64.b64decode(bar)', 'import pickle'),
    ],
    ...(
      [
        ['the matching arm is request data', "'ABC'[0]", "case 'A':", "case 'B':"],
        ['an or-pattern arm is request data', "'ABD'[2]", "case 'C' | 'D':", "case 'B':"],
        ['the wildcard arm is request data', "'xyz'", "case 'A':", "case 'B':"],
        ['a guard', "'ABC'[1]", "case 'A':", "case 'B' if param:"],
        ['a capture pattern first', "'ABC'[1]", 'case other:', "case 'B':"],
        ['a subject from the request', 'param', "case 'A':", "case 'B':"],
        ['a sequence pattern', "'ABC'[1]", "case 'A':", "case 'B', 'C':"],
      ] as const
    ).map(([name, subject, first, second]) => [
      `match: ${name}`,
      VIEW(
        `    guess = ${subject}\n    match guess:\n        ${first}\n            bar = param\n        ${second}\n            bar = 'bob'\n        case _:\n            bar = param`,
        'base64.urlsafe_b64decode(bar)',
      ),
    ]),
    [
      'a decoder the snippet defines',
      `import pickle\ndef b64decode(s):\n    return s\nx = pickle.loads(b64decode('${DATA_B64}'))\n`,
    ],
    [
      'a name the decoding is bound to',
      `import pickle, base64\nraw = base64.b64decode('${EVIL_B64}')\nx = pickle.loads(raw)\n`,
    ],
  ])('EVADE %s stays blocked', async (_name, code) => {
    const found = await critical(code, 'python');
    expect(
      found.some((f) => f.type === 'unsafe_deserialization'),
      code,
    ).toBe(true);
  });

  it.each([
    ['base64.b64decode', 'QQ==', '41'],
    ['base64.b64decode', 'QUI=', '4142'],
    ['base64.b64decode', 'QUJD', '414243'],
    ['base64.b64decode', 'QUJ', 'raises'],
    ['base64.b64decode', 'Q', 'raises'],
    ['base64.b64decode', '', ''],
    ['base64.urlsafe_b64decode', '-_-_', 'fbffbf'],
    ['base64.urlsafe_b64decode', '+/+/', 'fbffbf'],
    ['base64.urlsafe_b64decode', 'a_Value', 'raises'],
    ['base64.b16decode', '80037D', '80037d'],
    ['base64.b16decode', '80037d', 'raises'],
    ['base64.b16decode', 'ABC', 'raises'],
    ['binascii.unhexlify', '80037d', '80037d'],
    ['binascii.a2b_hex', '4g', 'raises'],
  ])('%s(%j) is %s (as CPython 3.11 decodes it)', (decoder, text, want) => {
    const got = decodeExact(decoder, text);
    expect(got === null ? null : got === 'raises' ? 'raises' : Buffer.from(got).toString('hex')).toBe(want);
  });

  it.each([
    ['base64.b64decode', 'QQ==QUJD'],
    ['base64.b64decode', "bob's"],
    ['base64.b64decode', 'QUJD='],
    ['base64.b64decode', 'Q==='],
    ['base64.b64decode', 'QUJDé'],
    ['base64.b32decode', 'MFRGG==='],
  ])('%s(%j) is not judged', (decoder, text) => {
    expect(decodeExact(decoder, text)).toBeNull();
  });
});

const CONTROLLER = (ctor: string, extra = '') =>
  `package p;\n\nimport org.springframework.web.servlet.ModelAndView;\nimport javax.servlet.http.HttpServletRequest;\nimport java.util.Map;\n\npublic class Errors {\n    private static final String T = "<p>\${error.message}</p>";\n    private ModelAndView error(HttpServletRequest request, Map<String, Object> att) {\n        ModelAndView model = new ModelAndView(${ctor});\n        model.addObject("error", att);\n        return model;\n    }\n}\n${extra}`;

describe('issue 24, session 16, second wave: SpelView templates', () => {
  it.each([
    ['a constant template with placeholders', CONTROLLER('new SpelView(T)'), 10],
    ['a template built at run time', CONTROLLER('new SpelView("<p>" + request.getParameter("t") + "</p>")'), 10],
    ['a qualified SpelView', CONTROLLER('new org.example.web.SpelView(T)'), 10],
    [
      'the whitelabel field of Spring Boot 1.x',
      'import org.springframework.web.servlet.View;\n\nclass Config {\n    private SpelView view = new SpelView("<div>${message}</div>");\n    View error() { return view; }\n}\n',
      4,
    ],
  ])('%s is blocked at the construction', async (_name, code, line) => {
    const found = await critical(code, 'java');
    expect(found).toContainEqual(
      expect.objectContaining({
        line_number: line,
        type: 'dynamic_code_execution',
        description: expect.stringMatching(/SpelView/),
      }),
    );
  });

  it.each([
    ['an ordinary view name', CONTROLLER('"error", att')],
    ['an InternalResourceView', CONTROLLER('new InternalResourceView("/WEB-INF/${x}.jsp")')],
    ['a RedirectView', CONTROLLER('new RedirectView("/login")')],
    ['a SpelView template without placeholders', CONTROLLER('new SpelView("<p>static</p>")')],
    [
      'a SpelView the snippet defines (its body is judged)',
      CONTROLLER(
        'new SpelView(T)',
        'class SpelView implements org.springframework.web.servlet.View {\n    private final String t;\n    SpelView(String t) { this.t = t; }\n    public void render(Map<String, ?> m, HttpServletRequest q, javax.servlet.http.HttpServletResponse r) throws Exception {\n        r.getWriter().append(org.springframework.web.util.HtmlUtils.htmlEscape(t));\n    }\n}\n',
      ),
    ],
  ])('%s is admitted', async (_name, code) => {
    expect(await critical(code, 'java')).toEqual([]);
  });
});

describe('issue 24, session 16, second wave: the lines that bind a sink call’s callee or receiver', () => {
  it.each([
    [
      'python',
      'a receiver built over several lines',
      'import multiprocessing.connection\n\nconn = multiprocessing.connection.Client(\n    ("localhost", 6000),\n)\nconn.send({})\nrx = conn.recv()\n',
      7,
      /receiver bound on line 3$/,
    ],
    [
      'python',
      'a callee through getattr of an imported module',
      'from somewhere import something\nm = __import__("os")\nrun = getattr(m, "system")\nrun(something())\n',
      4,
      /callee bound on lines 2, 3$/,
    ],
    [
      'java',
      'a stream declared with its type',
      'import java.io.*;\n\nclass R {\n    Object read(InputStream s) throws Exception {\n        ObjectInputStream in = new ObjectInputStream(s);\n        return in.readObject();\n    }\n}\n',
      6,
      /receiver bound on line 5/,
    ],
  ])('%s: %s', async (language, _name, code, line, description) => {
    const found = await critical(code, language);
    expect(found).toContainEqual(
      expect.objectContaining({ line_number: line, description: expect.stringMatching(description) }),
    );
  });

  it.each([
    ['a module receiver', 'import os\nfrom x import y\nos.system(y())\n', 3],
    ['a keyword argument is no binding', 'import os\nfrom x import y\nf(os=1)\nos.system(y())\n', 4],
  ])('%s names no binding', async (_name, code, line) => {
    const found = await critical(code, 'python');
    const f = found.find((i) => i.line_number === line);
    expect(f).toBeDefined();
    expect(f!.description).not.toMatch(/bound on/);
  });
});
