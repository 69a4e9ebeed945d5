// Issue 24, session 13, black-box rows: C# is scanned (no longer refused as an unsupported
// language). Process execution, a ProcessStartInfo set from request input, a script or a type
// chosen by input and the BinaryFormatter / Json.NET TypeNameHandling families are BLOCKED at
// their line; constant uses and safe serializers are admitted; bad input is a 4xx.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

const action = (...body: string[]) =>
  [
    'using System;',
    'public class HomeController : Controller {',
    '  public IActionResult Run([FromQuery] string input) {',
    ...body.map((b) => `    ${b}`),
    '    return Ok();',
    '  }',
    '}',
  ].join('\n');

describe('POST /verify/code: C# (issue 24, session 13)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'csharp',
      action('System.Diagnostics.Process.Start("cmd.exe", "/c " + input);'),
      4,
      'shell_execution',
      /Process\.Start/,
    ],
    [
      'cs',
      action('var psi = new System.Diagnostics.ProcessStartInfo();', 'psi.Arguments = input;'),
      5,
      'shell_execution',
      /ProcessStartInfo#set_Arguments/,
    ],
    [
      'c#',
      action('var r = CSharpScript.EvaluateAsync(input);'),
      4,
      'dynamic_code_execution',
      /CSharpScript\.EvaluateAsync/,
    ],
    [
      'dotnet',
      action('string n = Request.Query["t"];', 'var o = Activator.CreateInstance(Type.GetType(n));'),
      5,
      'dynamic_code_execution',
      /input from line 4$/,
    ],
    [
      'csharp',
      action('var o = new BinaryFormatter().Deserialize(Request.Body);'),
      4,
      'unsafe_deserialization',
      /BinaryFormatter#Deserialize/,
    ],
    [
      'csharp',
      action('var s = new JsonSerializerSettings { TypeNameHandling = TypeNameHandling.Auto };'),
      4,
      'unsafe_deserialization',
      /TypeNameHandling/,
    ],
  ])('%s: blocked at the sink line (%#)', async (language, code, line, type, description) => {
    expectBlockedAt(await verify({ code, language }), line, type, description);
  });

  it.each([
    ['a constant type name', action('var t = Type.GetType("System.Text.StringBuilder");')],
    ['a constant script', action('var r = CSharpScript.EvaluateAsync<int>("1 + 2");')],
    ['Json.NET without type names', action('var o = JsonConvert.DeserializeObject<Model>(input);')],
    ['XmlSerializer of a typeof', action('var o = new XmlSerializer(typeof(Model)).Deserialize(Request.Body);')],
  ])('%s is admitted', async (_name, code) => {
    expectAdmitted(await verify({ code, language: 'csharp', extra_field: null }));
  });

  it('code that is not C# is refused as a parse failure, not admitted', async () => {
    const res = await verify({ code: 'def f(:\n  pass', language: 'csharp' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ admission: 'BLOCKED' });
    expect(res.body.proof_ref === null || res.body.status === 'VERIFIED').toBe(true);
  });

  it.each([
    ['code not a string', { code: ['Process.Start("x");'], language: 'csharp' }],
    ['language not a string', { code: 'Process.Start("x");', language: 5 }],
  ])('bad input (%s) is a 400 with a detail', async (_name, body) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(typeof res.body.detail).toBe('string');
  });
});
