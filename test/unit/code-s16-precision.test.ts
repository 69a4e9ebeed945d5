// Issue 24, session 16 (precision on the suites' safe lines): choices to fail closed replaced by
// exact computations where one exists, each with the evasions that must stay blocked beside it.
//  - Python: inside `if x == 'a' or x == 'b':` (or `x in ('a', 'b')`) the name holds one of those
//    strings, so `eval(x)` runs one of those constant codes (python-paths.ts narrow).
//  - jsonpickle.decode of a constant text in which no `py/` tag can appear (payload-jsonpickle.ts).
//  - pickle.loads of a bytes literal whose opcodes import, call and ask nothing (payload-pickle.ts).
//  - PHP unserialize of a single-quoted literal without object or reference entries
//    (payload-php-serialize.ts).
//  - `marshal.<a member marshal does not have>(...)` raises before anything runs (closed-modules.ts).
// Written on our own snippets, never a suite's text.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';
import { inertPickle, pythonBytesLiteral } from '../../engines/code/analyzers/payload-pickle.js';
import { inertJsonpickleText } from '../../engines/code/analyzers/payload-jsonpickle.js';
import { inertPhpSerializedLiteral } from '../../engines/code/analyzers/payload-php-serialize.js';
import { absentMember } from '../../engines/code/analyzers/closed-modules.js';

const scan = async (code: string, language: string) => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string };
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  return fields;
};
const critical = async (code: string, language: string): Promise<Issue[]> =>
  ((await scan(code, language)).issues ?? []).filter((i) => i.severity === 'critical');

const PY_VIEW = (guard: string, body: string) =>
  `from flask import request\n\ndef view():\n    foo = 1\n    bar = 2\n    name = request.args.get("n")\n    ${guard}\n        ${body}\n`;

describe('issue 24, session 16: exact computations instead of fail-closed choices', () => {
  it.each([
    ['or of equalities', PY_VIEW('if name == "foo" or name == "bar":', 'print(eval(name))')],
    ['reversed equality', PY_VIEW('if "foo" == name:', 'print(eval(name))')],
    ['membership in a tuple', PY_VIEW('if name in ("foo", "bar"):', 'print(eval(name))')],
    ['membership in a list, parenthesised', PY_VIEW('if (name in ["foo"]) or (name == "bar"):', 'exec(name)')],
    [
      'elif arm',
      'from flask import request\n\ndef view():\n    foo = 1\n    name = request.args.get("n")\n    if name == "":\n        return\n    elif name == "foo":\n        print(eval(name))\n',
    ],
    [
      'jsonpickle constant without tags',
      'import jsonpickle\n\ndef ok():\n    return jsonpickle.decode(\'{"a": [1, "x"]}\')\n',
    ],
    ['jsonpickle constant that is no JSON', "import jsonpickle\nobj = jsonpickle.decode('foobar')\n"],
    [
      'pickle protocol 4 dict',
      'import pickle\nd = pickle.loads(b"\\x80\\x04\\x95\\x10\\x00\\x00\\x00\\x00\\x00\\x00\\x00}\\x94\\x8c\\x01a\\x94K\\x01s.")\n',
    ],
    ['pickle protocol 0 list', 'import pickle\nd = pickle.loads(b"(lp0\\nI1\\naI2\\na.")\n'],
    ['marshal member that does not exist', "import marshal\nfor line in open('x'):\n    marshal.someokfunc(line)\n"],
    ['php array payload', '<?php\n$a = unserialize(\'a:2:{i:0;s:1:"x";i:1;b:1;}\');\n'],
  ])('%s is admitted', async (_name, code) => {
    const language = code.startsWith('<?php') ? 'php' : 'python';
    expect(await critical(code, language)).toEqual([]);
  });

  it.each([
    // Python narrowing: only the exact shapes narrow.
    [
      'EVADE constant code that runs a command',
      PY_VIEW('if name == "foo" or name == "__import__(\'os\').system(\'id\')":', 'eval(name)'),
      8,
    ],
    ['EVADE two different names', PY_VIEW('if name == "foo" or foo == "bar":', 'eval(name)'), 8],
    ['EVADE and instead of or', PY_VIEW('if name == "foo" and foo:', 'eval(name)'), 8],
    ['EVADE not-equal', PY_VIEW('if name != "foo":', 'eval(name)'), 8],
    ['EVADE substring test', PY_VIEW('if name in "foo or bar":', 'eval(name)'), 8],
    ['EVADE use in the else arm', PY_VIEW('if name == "foo":\n        pass\n    else:', 'eval(name)'), 10],
    ['EVADE rebound in the arm', PY_VIEW('if name == "foo":\n        name = request.args.get("m")', 'eval(name)'), 9],
    ['EVADE an f-string', PY_VIEW('if name == f"{foo}":', 'eval(name)'), 8],
    ['EVADE a name compared', PY_VIEW('if name == bar:', 'eval(name)'), 8],
    [
      'EVADE a snippet with its own __eq__',
      'from flask import request\n\nclass S(str):\n    def __eq__(self, o):\n        return True\n\ndef view():\n    name = S(request.args.get("n"))\n    if name == "foo":\n        eval(name)\n',
      10,
    ],
    [
      'EVADE a global name',
      'from flask import request\n\ndef view():\n    global name\n    name = request.args.get("n")\n    if name == "foo":\n        eval(name)\n',
      7,
    ],
    // jsonpickle: any text that could spell a tag.
    ['EVADE jsonpickle py/object', 'import jsonpickle\no = jsonpickle.decode(\'{"py/object": "os.system"}\')\n', 2],
    ['EVADE jsonpickle escaped tag', 'import jsonpickle\no = jsonpickle.decode(\'{"\\\\u0070y/object": "x"}\')\n', 2],
    [
      'EVADE jsonpickle yaml tag',
      "import jsonpickle\no = jsonpickle.decode('!!python/object/apply:os.system [id]')\n",
      2,
    ],
    ['EVADE jsonpickle json:// key', 'import jsonpickle\no = jsonpickle.decode(\'{"json://1": 2}\', keys=True)\n', 2],
    [
      'EVADE jsonpickle utf-16 bytes',
      "import jsonpickle\no = jsonpickle.decode(b'{\\x00\"\\x00p\\x00y\\x00/\\x00')\n",
      2,
    ],
    [
      'EVADE jsonpickle with a configured backend',
      "import jsonpickle\njsonpickle.load_backend('yaml')\no = jsonpickle.decode('a: 1')\n",
      3,
    ],
    ['EVADE jsonpickle with its own backend', "import jsonpickle\no = jsonpickle.decode('a: 1', backend=b)\n", 2],
    ['EVADE jsonpickle with a positional backend', "import jsonpickle\no = jsonpickle.decode('a: 1', b)\n", 2],
    ['EVADE jsonpickle of input', 'import jsonpickle\ndef f(p):\n    return jsonpickle.decode(p)\n', 3],
    // pickle: any code-running opcode, a stream that never stops, a literal not read exactly.
    ['EVADE pickle GLOBAL/REDUCE', 'import pickle\npickle.loads(b"cos\\nsystem\\n(S\'id\'\\ntR.")\n', 2],
    ['EVADE pickle GLOBAL by octal escape', 'import pickle\npickle.loads(b"\\143os\\nsystem\\n(S\'id\'\\ntR.")\n', 2],
    [
      'EVADE pickle STACK_GLOBAL',
      'import pickle\npickle.loads(b"\\x80\\x04\\x8c\\x02os\\x94\\x8c\\x06system\\x94\\x93\\x94.")\n',
      2,
    ],
    ['EVADE pickle INST', 'import pickle\npickle.loads(b"(S\'id\'\\nios\\nsystem\\n.")\n', 2],
    ['EVADE pickle BUILD', 'import pickle\npickle.loads(b"}(S\'a\'\\nI1\\ndb.")\n', 2],
    ['EVADE pickle PERSID', 'import pickle\npickle.loads(b"P1\\n.")\n', 2],
    ['EVADE pickle EXT1', 'import pickle\npickle.loads(b"\\x80\\x02\\x82\\x01.")\n', 2],
    ['EVADE pickle without STOP', 'import pickle\npickle.loads(b"K\\x01")\n', 2],
    ['EVADE pickle concatenated literal', 'import pickle\npickle.loads(b"(lp0\\n" b"a.")\n', 2],
    ['EVADE pickle str literal', 'import pickle\npickle.loads("(lp0\\na.")\n', 2],
    ['EVADE cPickle-style module alias', 'import _pickle as p\np.loads(b"cos\\nsystem\\n(S\'id\'\\ntR.")\n', 2],
    // marshal: only a member the module lacks, called, never written.
    ['EVADE marshal.loads', 'import marshal\nmarshal.loads(blob)\n', 2],
    [
      'EVADE marshal member added by the snippet',
      'import marshal, pickle\nmarshal.someokfunc = pickle.loads\nmarshal.someokfunc(blob)\n',
      3,
    ],
    [
      'EVADE marshal member added by setattr',
      "import marshal, pickle\nsetattr(marshal, 'x', pickle.loads)\nmarshal.x(blob)\n",
      3,
    ],
    // PHP: object, custom, enum and reference entries; literals not read exactly.
    ['EVADE php object entry', '<?php\n$o = unserialize(\'O:1:"a":0:{}\');\n', 2],
    ['EVADE php Serializable entry', '<?php\n$o = unserialize(\'C:3:"Foo":0:{}\');\n', 2],
    ['EVADE php enum entry', '<?php\n$o = unserialize(\'E:7:"Foo:Bar";\');\n', 2],
    ['EVADE php reference entry', "<?php\n$o = unserialize('a:2:{i:0;a:0:{}i:1;R:2;}');\n", 2],
    ['EVADE php double-quoted literal', '<?php\n$o = unserialize("\\x4f:1:\\"a\\":0:{}");\n', 2],
    ['EVADE php input', "<?php\n$o = unserialize($_GET['x']);\n", 2],
  ])('%s stays blocked', async (_name, code, line) => {
    const language = code.startsWith('<?php') ? 'php' : 'python';
    const found = await critical(code, language);
    expect(
      found.map((f) => f.line_number),
      code,
    ).toContain(line);
  });

  it('reads Python bytes literals exactly', () => {
    expect(Array.from(pythonBytesLiteral("b'\\x41\\101\\n\\q'")!)).toEqual([0x41, 0x41, 0x0a, 0x5c, 0x71]);
    expect(Array.from(pythonBytesLiteral("rb'\\x41\\''")!)).toEqual([0x5c, 0x78, 0x34, 0x31, 0x5c, 0x27]);
    expect(pythonBytesLiteral("'text'")).toBeNull();
    expect(pythonBytesLiteral("b'\\777'")).toBeNull();
    expect(pythonBytesLiteral("b'\\x4'")).toBeNull();
  });

  it('walks pickle opcode arguments by their exact lengths', () => {
    // SHORT_BINUNICODE whose text holds a "c": data, not an opcode.
    expect(inertPickle(Uint8Array.from([0x80, 0x04, 0x8c, 0x01, 0x63, 0x94, 0x2e]))).toBe(true);
    // A length that claims more bytes than there are ends early: fail closed.
    expect(inertPickle(Uint8Array.from([0x8c, 0x09, 0x61, 0x2e]))).toBe(false);
    expect(inertPickle(Uint8Array.from([0xff, 0x2e]))).toBe(false); // unknown opcode
  });

  it('judges jsonpickle texts, PHP literals and closed-module members by the documented rules', () => {
    expect(inertJsonpickleText('{"a": 1}')).toBe(true);
    expect(inertJsonpickleText('{"py/tuple": [1]}')).toBe(false);
    expect(inertJsonpickleText('{"a": "é"}')).toBe(false);
    expect(inertPhpSerializedLiteral("'i:1;'")).toBe(true);
    expect(inertPhpSerializedLiteral('\'s:3:"o:x";\'')).toBe(false); // stricter inside strings
    expect(inertPhpSerializedLiteral("'a:0:{}' . $x")).toBe(false);
    expect(absentMember('marshal.someokfunc', 'marshal.someokfunc(x)')).toBe(true);
    expect(absentMember('marshal.loads', 'marshal.loads(x)')).toBe(false);
    expect(absentMember('marshal.__loader__', 'marshal.__loader__(x)')).toBe(false);
    expect(absentMember('marshal.x', 'y = marshal.x\nmarshal.x(1)')).toBe(false);
    expect(absentMember('pickle.nothing', 'pickle.nothing(1)')).toBe(false); // not a closed module
  });
});
