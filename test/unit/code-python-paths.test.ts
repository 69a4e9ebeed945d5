// Session 11 (issue 24): path-sensitive constant propagation in the Python analyzer
// (engines/code/analyzers/python-paths.ts). Each admitted row is safe only because of a
// dead branch, a reassignment, a constant container element or joined constant arms; each
// blocked row is an evasion of one of those facts that must stay blocked (fail closed).
import { describe, expect, it } from 'vitest';
import { scanCodeRaw } from '../../engines/code/index.js';

async function evalFindings(code: string): Promise<{ critical: string[]; low: string[] }> {
  const raw = await scanCodeRaw(code, 'python');
  if (raw.status !== 'scanned') throw new Error(`not scanned: ${raw.status}`);
  const of = (sev: string) =>
    raw.findings.filter((f) => f.severity === sev && f.type === 'dynamic_code_execution').map((f) => f.rule_id);
  return { critical: of('critical'), low: of('low') };
}

/** A request handler around `body` (indented four spaces), as the suites write them. */
const handler = (body: string) =>
  `from flask import request\n\ndef handler():\n    param = request.args.get("p")\n${body
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;

describe('Python path-sensitive constants: safe only along the paths, admitted', () => {
  const rows: [string, string][] = [
    [
      'a branch dead under constant arithmetic',
      `num = 86\nif 7 * 42 - num > 200:\n    bar = 'ok'\nelse:\n    bar = param\nexec(bar)`,
    ],
    [
      'a conditional expression whose condition folds',
      `num = 106\nbar = "ok" if 7 * 18 + num > 200 else param\nexec(bar)`,
    ],
    [
      'an elif chain whose earlier conditions fold false',
      `n = 3\nif n == 1:\n    bar = param\nelif n % 2 == 0:\n    bar = param\nelse:\n    bar = 'x = 1'\neval(bar)`,
    ],
    ['a variable overwritten with a constant', `bar = param\nbar = 'safe'\neval(bar)`],
    [
      'a string-membership test on a constant',
      `bar = "This should never happen"\nif 'should' not in bar:\n    bar = param\nexec(bar)`,
    ],
    [
      'a constant element of a dict',
      `m = {}\nm['a'] = 'a_value'\nm['b'] = param\nbar = param\nbar = m['a']\neval(bar)`,
    ],
    [
      'a constant element of a list after append and pop',
      `lst = []\nlst.append('safe')\nlst.append(param)\nlst.append('moresafe')\nlst.pop(0)\nbar = lst[1]\neval(bar)`,
    ],
    [
      'a ConfigParser option set to a constant (option names are case-folded)',
      `import configparser\nconf = configparser.ConfigParser()\nconf.add_section('s')\nconf.set('s', 'KeyA', 'a_value')\nconf.set('s', 'keyB', param)\nbar = conf.get('s', 'keya')\nexec(bar)`,
    ],
    ['two constants from two arms, both scanned clean', `bar = "x = 1"\nif param:\n    bar = "y = 2"\nexec(bar)`],
    ['an arm that returns never reaches the call', `bar = 'ok'\nif param:\n    bar = param\n    return bar\neval(bar)`],
  ];
  for (const [name, body] of rows)
    it(name, async () => {
      const f = await evalFindings(handler(body));
      expect(f.critical).toEqual([]);
      expect(f.low).toEqual(['py.eval-constant']);
    });
});

describe('Python path-sensitive constants: evasions stay blocked', () => {
  const rows: [string, string][] = [
    [
      'a condition that does not fold (both arms joined)',
      `if len(param) > 200:\n    bar = 'ok'\nelse:\n    bar = param\nexec(bar)`,
    ],
    ['a call with unknown effects between (a container handed to it)', `lst = ['ok']\nmutate(lst)\nexec(lst[0])`],
    [
      'a container aliased, then written through the alias',
      `d = {'k': 'ok'}\ng = d\ng['k'] = param\nbar = d['k']\nexec(bar)`,
    ],
    [
      'a closure that writes the container, called before',
      `lst = ['ok']\ndef grow():\n    lst.append(param)\ngrow()\nbar = lst[-1]\nexec(bar)`,
    ],
    ['a loop that rebinds the name', `bar = 'ok'\nfor x in range(2):\n    bar = param\nexec(bar)`],
    [
      'a while loop under a constant-looking condition',
      `bar = 'ok'\nn = 0\nwhile n < 1:\n    bar = param\n    n = n + 1\nexec(bar)`,
    ],
    [
      'a name declared global',
      `global bar\nbar = 'ok'\nif 1 > 2:\n    bar = 'no'\nbar = param if len(param) else bar\nexec(bar)`,
    ],
    ['locals() written before the call', `bar = 'ok' if 2 > 1 else param\nlocals()['bar'] = param\nexec(bar)`],
    [
      'setattr on the module before the call',
      `import sys\nbar = 'ok' if 2 > 1 else param\nsetattr(sys.modules[__name__], 'bar', param)\nexec(bar)`,
    ],
    ['exec rebinding before the call', `bar = 'ok' if 2 > 1 else param\nexec("bar = param")\nexec(bar)`],
    ['augmented assignment', `bar = 'ok' if 2 > 1 else param\nbar += param\nexec(bar)`],
    [
      'an assignment inside try that may not have run',
      `bar = param\ntry:\n    risky()\n    bar = 'ok'\nexcept Exception:\n    pass\nexec(bar)`,
    ],
    [
      'a use inside an except handler',
      `bar = 'ok' if 2 > 1 else param\ntry:\n    bar = param\n    risky()\nexcept Exception:\n    exec(bar)`,
    ],
    ['a walrus in a condition', `bar = 'ok' if 2 > 1 else param\nif (bar := param):\n    pass\nexec(bar)`],
    ['a walrus inside the call', `bar = 'ok' if 2 > 1 else param\nexec(bar if (bar := param) else bar)`],
    [
      'frame introspection in the snippet',
      `import sys\nbar = 'ok' if 2 > 1 else param\nsys._getframe(0).f_locals['bar'] = param\nexec(bar)`,
    ],
    ['a comprehension variable of the same name', `bar = 'ok' if 2 > 1 else param\n[exec(bar) for bar in [param]]`],
    [
      'a dict written under an unknown key',
      `d = {'k': 'ok'}\nd[param] = param\nbar = d['k'] if 2 > 1 else param\nexec(bar)`,
    ],
    [
      'a list popped at an unknown index',
      `lst = ['ok', param]\nlst.pop(len(param))\nbar = lst[0] if 2 > 1 else param\nexec(bar)`,
    ],
    [
      'a ConfigParser option read under another case-folded name',
      `import configparser\nconf = configparser.ConfigParser()\nconf.add_section('s')\nconf.set('s', 'A', param)\nbar = 'ok'\nbar = conf.get('s', 'a')\nexec(bar)`,
    ],
    [
      'a ConfigParser value with interpolation',
      `import configparser\nconf = configparser.ConfigParser()\nconf.add_section('s')\nconf.set('s', 'b', param)\nconf.set('s', 'a', '%(b)s')\nbar = 'ok'\nbar = conf.get('s', 'a')\nexec(bar)`,
    ],
    ['a with block whose body rebinds the name', `bar = 'ok'\nwith open('f') as fh:\n    bar = param\nexec(bar)`],
    [
      'a protocol method defined in the snippet',
      `class T:\n    def __bool__(self):\n        return True\nbar = 'ok' if 2 > 1 else param\nif T():\n    pass\nexec(bar)`,
    ],
    [
      'a constant arm that is itself dangerous',
      `bar = 'x = 1' if 1 > 2 else "__import__('os').system('id')"\nexec(bar)`,
    ],
    [
      'one of two constant arms dangerous',
      `bar = "x = 1"\nif param:\n    bar = "__import__('os').system('id')"\nexec(bar)`,
    ],
    ['del, then an unknown rebinding', `bar = 'ok'\ndel bar\nbar = param\nexec(bar)`],
  ];
  for (const [name, body] of rows)
    it(name, async () => {
      const f = await evalFindings(handler(body));
      expect(f.critical).toContain('py.eval');
    });

  it('a call with unknown effects between the constant and the sink forgets it (a callee may reach the frame)', async () => {
    const f = await evalFindings(handler(`bar = 'ok' if 2 > 1 else param\nhelper()\nexec(bar)`));
    expect(f.critical).toContain('py.eval');
  });

  it('module level is not tracked (a function defined above may rebind a global)', async () => {
    const f = await evalFindings(
      `import os\nbar = 'ok' if 2 > 1 else os.environ['X']\nbar = os.environ['Y'] if len(bar) else bar\nexec(bar)\n`,
    );
    expect(f.critical).toContain('py.eval');
  });
});

async function yamlFindings(code: string): Promise<string[]> {
  const raw = await scanCodeRaw(code, 'python');
  if (raw.status !== 'scanned') throw new Error(`not scanned: ${raw.status}`);
  return raw.findings.filter((f) => f.severity === 'critical').map((f) => f.rule_id);
}

describe('yaml.load: the loader decides, not the document', () => {
  it('a document known to be a constant without a tag is still blocked under the full loader', async () => {
    const code = handler(
      `num = 106\nbar = "text: hi" if 7 * 18 + num > 200 else param\nimport yaml\nyaml.load(bar, Loader=yaml.Loader)`,
    );
    expect(await yamlFindings(code)).toContain('py.yaml-load');
  });
});

describe('Python path-sensitive constants: bounded', () => {
  it('4,000 statements and 2,000 sinks in one function (100 KB) scan within the walk budget; a tainted sink stays blocked', async () => {
    const lines = ['def f(p):'];
    for (let i = 0; i < 2000; i++) lines.push(`    x${i % 50} = "a = 1" if ${i} > 1 else p`, `    eval(x${i % 50})`);
    const started = Date.now();
    const raw = await scanCodeRaw(lines.join('\n') + '\n', 'python');
    expect(Date.now() - started).toBeLessThan(30_000);
    if (raw.status !== 'scanned') throw new Error(`not scanned: ${raw.status}`);
    expect(raw.findings).toContainEqual(
      expect.objectContaining({ rule_id: 'py.eval', line_number: 3, severity: 'critical' }),
    );
  });
});
