// Issue 24 (code scan), session 11, black-box rows: the Python analyzer reads a name along the
// paths to its use (engines/code/analyzers/python-paths.ts). Code that is safe only because a
// branch is dead under constant arithmetic, a variable is overwritten with a constant, or a
// container element / ConfigParser option is a constant is admitted; the evasions of each of
// those facts (a call with unknown effects, a loop, an alias, a global, a walrus, augmented
// assignment, try/except) stay blocked.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

const handler = (body: string) =>
  `from flask import request\n\ndef handler():\n    param = request.args.get("p")\n${body
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;

describe('POST /verify/code: Python path-sensitive constants (issue 24, session 11)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'a branch dead under constant arithmetic',
      `num = 86\nif 7 * 42 - num > 200:\n    bar = 'ok'\nelse:\n    bar = param\nexec(bar)`,
    ],
    [
      'a conditional expression whose condition folds',
      `num = 106\nbar = "ok" if 7 * 18 + num > 200 else param\neval(bar)`,
    ],
    [
      'a variable overwritten with a dict element that is constant',
      `m = {}\nm['a'] = 'a_value'\nm['b'] = param\nbar = m['b']\nbar = m['a']\neval(bar)`,
    ],
    [
      'a list element after append and pop',
      `lst = []\nlst.append('safe')\nlst.append(param)\nlst.append('moresafe')\nlst.pop(0)\nbar = lst[1]\neval(bar)`,
    ],
    [
      'a ConfigParser option set to a constant',
      `import configparser\nconf = configparser.ConfigParser()\nconf.add_section('s')\nconf.set('s', 'keyA', 'a_value')\nconf.set('s', 'keyB', param)\nbar = conf.get('s', 'keyA')\nexec(bar)`,
    ],
    ['two constant arms, both scanned clean', `bar = "x = 1"\nif param:\n    bar = "y = 2"\nexec(bar)`],
  ])('%s: admitted', async (_name, body) => {
    const res = await verify({ code: handler(body), language: 'python' });
    expectAdmitted(res);
  });

  it.each([
    [
      'a condition that does not fold',
      `if len(param) > 200:\n    bar = 'ok'\nelse:\n    bar = param\nexec(bar)`,
      9,
      'dynamic_code_execution',
    ],
    [
      'a call with unknown effects in between',
      `bar = 'ok' if 2 > 1 else param\nhelper()\nexec(bar)`,
      7,
      'dynamic_code_execution',
    ],
    [
      'a loop that rebinds the name',
      `bar = 'ok'\nfor x in range(2):\n    bar = param\nexec(bar)`,
      8,
      'dynamic_code_execution',
    ],
    [
      'a container aliased and written through the alias',
      `d = {'k': 'ok'}\ng = d\ng['k'] = param\nbar = d['k']\neval(bar)`,
      9,
      'dynamic_code_execution',
    ],
    [
      'a name declared global',
      `global bar\nbar = 'ok'\nbar = param if len(param) else bar\nexec(bar)`,
      8,
      'dynamic_code_execution',
    ],
    [
      'locals() written in between',
      `bar = 'ok' if 2 > 1 else param\nlocals()['bar'] = param\nexec(bar)`,
      7,
      'dynamic_code_execution',
    ],
    ['augmented assignment', `bar = 'ok' if 2 > 1 else param\nbar += param\nexec(bar)`, 7, 'dynamic_code_execution'],
    [
      'an assignment inside try that may not have run',
      `bar = param\ntry:\n    risky()\n    bar = 'ok'\nexcept Exception:\n    pass\nexec(bar)`,
      11,
      'dynamic_code_execution',
    ],
    [
      'a walrus in a condition',
      `bar = 'ok' if 2 > 1 else param\nif (bar := param):\n    pass\nexec(bar)`,
      8,
      'dynamic_code_execution',
    ],
    [
      'frame introspection in the snippet',
      `import sys\nbar = 'ok' if 2 > 1 else param\nsys._getframe(0).f_locals['bar'] = param\nexec(bar)`,
      8,
      'dynamic_code_execution',
    ],
    [
      'a constant arm that is itself dangerous',
      `bar = "x = 1"\nif param:\n    bar = "__import__('os').system('id')"\nexec(bar)`,
      8,
      'dynamic_code_execution',
    ],
    [
      'a YAML constant with a python tag',
      `bar = "a: 1"\nif param:\n    bar = "!!python/object/apply:os.system ['id']"\nimport yaml\nyaml.load(bar, Loader=yaml.Loader)`,
      9,
      'unsafe_deserialization',
    ],
  ])('%s: VERIFIED unsafe and not admitted', async (_name, body, line, type) => {
    const res = await verify({ code: handler(body), language: 'python' });
    expectBlockedAt(res, line, type);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: ['x = 1'], language: 'python' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
