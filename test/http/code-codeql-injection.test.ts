// Issue 24 (code scan), third round, black-box rows: the families found missing on CodeQL's
// CWE-094/095 and CWE-502 query tests are blocked (SpEL evaluation, MVEL compiled objects,
// SnakeYAML parse, Ruby eval next to a class that defines its own, Ruby send / const_get by a
// computed name, ActiveJob deserialization, AngularJS expressions, Mongo $where, WebAssembly,
// a React Native WebView's computed injectedJavaScript, a Ruby backtick heredoc),
// their safe shapes are admitted (a SpEL or MVEL expression compiled from a constant, a send
// name with a constrained prefix, a Kryo whose factory requires registration, a js-yaml 4
// `.extend` schema of safe types), js-yaml `load` without a schema safe in both major versions
// stays blocked (fail closed), and C# (scanned since session 13) is
// blocked where a script is evaluated from a parameter.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

const SPEL =
  'import org.springframework.expression.*;\nimport org.springframework.expression.spel.standard.SpelExpressionParser;\nimport org.springframework.expression.spel.support.SimpleEvaluationContext;\nclass T {\n  Object f(String input) {\n    ExpressionParser parser = new SpelExpressionParser();\n';

describe('POST /verify/code: CodeQL code-injection families', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'java',
      `${SPEL}    Expression e = parser.parseExpression(input);\n    return e.getValue();\n  }\n}\n`,
      8,
      'dynamic_code_execution',
    ],
    [
      'java',
      'import org.mvel2.compiler.*;\nclass T {\n  ExpressionCompiler compiler;\n  Object f() {\n    return compiler.compile().getValue(null, null);\n  }\n}\n',
      5,
      'dynamic_code_execution',
    ],
    [
      'java',
      'import org.yaml.snakeyaml.Yaml;\nclass A {\n  Object f(java.io.Reader r) {\n    return new Yaml().parse(r);\n  }\n}\n',
      4,
      'unsafe_deserialization',
    ],
    [
      'ruby',
      'class Foo\n  def eval(x)\n    x\n  end\nend\nclass UsersController\n  def create\n    eval(params[:code])\n  end\nend\n',
      8,
      'dynamic_code_execution',
    ],
    [
      'javascript',
      "const y = require('js-yaml');\ny.load(body, { schema: y.DEFAULT_SCHEMA });\n",
      2,
      'unsafe_deserialization',
    ],
    ['ruby', 'def show\n  obj.send(params[:m], params[:a])\nend\n', 2, 'dynamic_code_execution'],
    ['ruby', 'def show\n  out = <<~`SH`\n    grep #{params[:q]} log.txt\n  SH\nend\n', 3, 'shell_execution'],
    ['ruby', 'def show\n  Object.const_get(params[:type]).new\nend\n', 2, 'dynamic_code_execution'],
    ['ruby', 'def show\n  ActiveJob::Serializers.deserialize(params[:job])\nend\n', 2, 'unsafe_deserialization'],
    [
      'javascript',
      "app.controller('C', function ($scope) {\n  $scope.$eval(location.hash.slice(1));\n});\n",
      2,
      'dynamic_code_execution',
    ],
    [
      'javascript',
      "function q(db, req) {\n  const docs = db.collection('d');\n  return docs.find({ $where: req.body.q });\n}\n",
      3,
      'dynamic_code_execution',
    ],
    ['javascript', 'WebAssembly.instantiate(bytes, {});\n', 1, 'dynamic_code_execution'],
    [
      'javascript',
      'export const Page = ({ code }) => <WebView injectedJavaScript={code} />;\n',
      1,
      'dynamic_code_execution',
    ],
  ])('%s: the family is VERIFIED unsafe and not admitted (%#)', async (language, code, line, type) => {
    const res = await verify({ code, language });
    expectBlockedAt(res, line, type);
  });

  it.each([
    [
      'java',
      'a SpEL expression parsed from a constant',
      `${SPEL}    return parser.parseExpression("1 + 1").getValue();\n  }\n}\n`,
    ],
    [
      'java',
      'an MVEL expression compiled from a constant',
      'import org.mvel2.compiler.*;\nclass T {\n  Object f() {\n    ExpressionCompiler c = new ExpressionCompiler("a + b");\n    return c.compile().getValue(null, null);\n  }\n}\n',
    ],
    [
      'ruby',
      'a send whose computed name has a constrained prefix',
      'def show\n  obj.send("render_#{params[:kind]}")\nend\n',
    ],
    [
      'java',
      'a Kryo from a factory method that requires class registration',
      'import com.esotericsoftware.kryo.Kryo;\nimport com.esotericsoftware.kryo.io.Input;\nclass A {\n  private Kryo safe() {\n    Kryo k = new Kryo();\n    k.setRegistrationRequired(true);\n    return k;\n  }\n  Object f(Input in) {\n    Kryo kryo = safe();\n    return kryo.readClassAndObject(in);\n  }\n}\n',
    ],
    [
      'javascript',
      'a js-yaml 4 schema extended with safe types',
      "const y = require('js-yaml');\nmodule.exports = (s) => y.load(s, { schema: y.DEFAULT_SCHEMA.extend(require('js-yaml-js-types').undefined) });\n",
    ],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('C# (session 13: scanned, no longer refused) blocks a script evaluated from a parameter', async () => {
    const res = await verify({ code: 'CSharpScript.EvaluateAsync(code);', language: 'csharp' });
    expectBlockedAt(res, 1, 'dynamic_code_execution', /CSharpScript\.EvaluateAsync/);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: ['eval(x)'], language: 'ruby' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
