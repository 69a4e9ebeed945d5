// Issue 24 (code scan), second round, black-box rows: a long assignment chain is analysed (no
// internal error), families found missing on CodeQL's and find-sec-bugs' tests are blocked, and
// their documented safe shapes (a class's own readObject hook, SnakeYAML with a SafeConstructor)
// are admitted.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectAdmitted, expectBlockedAt } from './code-verdicts.js';

describe('POST /verify/code: suite families, long chains', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('a 3,000-long assignment chain from input() to eval is VERIFIED unsafe with the sink line, not an internal error', async () => {
    const n = 3_000;
    const code = `x0 = input()\n${Array.from({ length: n }, (_, i) => `x${i + 1} = x${i}`).join('\n')}\neval(x${n})\n`;
    const res = await verify({ code, language: 'python' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'code_verifier.code_unsafe', critical_count: 1 },
    });
    expect(res.body.developer_fields.issues[0]).toMatchObject({
      severity: 'critical',
      type: 'dynamic_code_execution',
      line_number: n + 2,
    });
  });

  it.each([
    ['ruby', 'def show\n  obj = JSON.load(params[:data])\nend\n', 2, 'unsafe_deserialization'],
    ['ruby', "Terrapin::CommandLine.new(params[:cmd], 'x')\n", 1, 'shell_execution'],
    [
      'javascript',
      'async function run(page, code) {\n  await page.evaluate(`(${code})()`);\n}\n',
      2,
      'dynamic_code_execution',
    ],
    [
      'java',
      'import com.esotericsoftware.kryo.Kryo;\nclass A {\n  Object f(com.esotericsoftware.kryo.io.Input in) {\n    return new Kryo().readClassAndObject(in);\n  }\n}\n',
      4,
      'unsafe_deserialization',
    ],
  ])('%s: the family is VERIFIED unsafe and not admitted (%#)', async (language, code, line, type) => {
    const res = await verify({ code, language });
    expectBlockedAt(res, line, type);
  });

  it.each([
    [
      'a readObject hook reading the next object of its own stream',
      'class A implements java.io.Serializable {\n  Object p;\n  private void readObject(java.io.ObjectInputStream in) throws Exception {\n    p = in.readObject();\n  }\n}\n',
    ],
    [
      'SnakeYAML with a SafeConstructor',
      'import org.yaml.snakeyaml.Yaml;\nimport org.yaml.snakeyaml.constructor.SafeConstructor;\nclass A {\n  Object f(String s) {\n    return new Yaml(new SafeConstructor()).load(s);\n  }\n}\n',
    ],
  ])('java: %s is admitted', async (_name, code) => {
    const res = await verify({ code, language: 'java' });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: 42, language: 'python' });
    expect(res.status).toBe(400);
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.detail).toContain('code');
  });
});
