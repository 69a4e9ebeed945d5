// Issue 24, session 13: the C# analyzer (engines/code/analyzers/csharp.ts) and its rule rows
// (`cs.*` in engines/code/rules.ts). Each family has its dangerous shapes, evasion variants
// (aliases, fully-qualified names, `var`, property writes after construction, object
// initialisers, generic calls, interfaces) and the safe shapes beside them.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';
import { resolveLanguage } from '../../engines/code/languages.js';

const critical = async (code: string): Promise<Issue[]> => {
  const out = await scanCode(code, 'csharp');
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string };
  // A row that does not parse would pass every "no finding" check: each row must parse.
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  expect(fields.constraint_id, code).not.toBe('code_verifier.unsupported_language');
  return (fields.issues ?? []).filter((i) => i.severity === 'critical');
};
const lines = async (code: string) => (await critical(code)).map((i) => i.line_number);
const typesAt = async (code: string) => (await critical(code)).map((i) => `${i.line_number}:${i.type}`);
const cs = (...l: string[]) => l.join('\n');
/** A controller action around `body` lines (its first body line is line 4). */
const action = (...body: string[]) =>
  cs(
    'using System;',
    'public class HomeController : Controller {',
    '  public IActionResult Run([FromQuery] string input, string other) {',
    ...body.map((b) => `    ${b}`),
    '    return Ok();',
    '  }',
    '}',
  );

describe('issue 24, session 13: C# is a supported language', () => {
  it.each(['csharp', 'cs', 'c#', 'C#', ' CSharp ', 'dotnet', 'c-sharp'])('%s resolves to csharp', (name) => {
    expect(resolveLanguage(name)).toBe('csharp');
  });
  it('clean code is admitted', async () => {
    expect(await lines(action('var x = input.Length + 1;', 'Console.WriteLine(x);'))).toEqual([]);
  });
});

describe('C# process execution (always blocking, whatever the argument)', () => {
  it.each([
    ['Process.Start with input', ['System.Diagnostics.Process.Start("cmd.exe", "/c " + input);']],
    ['Process.Start with a constant (the contract blocks every process)', ['System.Diagnostics.Process.Start("ls");']],
    ['a using alias of Process', ['Proc.Start(input);'], 'using Proc = System.Diagnostics.Process;'],
    ['using System.Diagnostics; then Process.Start', ['Process.Start(input);'], 'using System.Diagnostics;'],
    ['Process.Start without any using', ['Process.Start(input);']],
    [
      'an instance of Process',
      ['var p = new System.Diagnostics.Process();', 'p.StartInfo.FileName = input;', 'p.Start();'],
    ],
    ['VB Interaction.Shell', ['Microsoft.VisualBasic.Interaction.Shell(input);']],
    ['using static, then a bare Start', ['Start(input);'], 'using static System.Diagnostics.Process;'],
    ['a global:: qualified name', ['global::System.Diagnostics.Process.Start(input);']],
    ['a namespace alias', ['D.Process.Start(input);'], 'using D = System.Diagnostics;'],
    ['a named argument', ['System.Diagnostics.Process.Start(fileName: input);']],
    ['a receiver cast to Process', ['((System.Diagnostics.Process)null).Start();']],
    [
      'Process.Start stored as a delegate',
      ['Func<string, System.Diagnostics.Process> f = System.Diagnostics.Process.Start;'],
    ],
    ['Process.Start passed as a method group', ['new[] { input }.Select(System.Diagnostics.Process.Start).ToList();']],
  ])('%s is blocked', async (_name, body, using = '') => {
    const code = using ? `${using}\n${action(...body)}` : action(...body);
    const found = await critical(code);
    expect(found.some((f) => f.type === 'shell_execution')).toBe(true);
  });

  it('ProcessStartInfo: constructor arguments, object initialiser and property writes are each reported on their line', async () => {
    const code = action(
      'var a = new ProcessStartInfo(input, other);', // 4
      'var b = new ProcessStartInfo { FileName = "sh",', // 5
      '  Arguments = "-c " + input };', // 6
      'ProcessStartInfo c = new ProcessStartInfo();', // 7
      'c.FileName = input;', // 8
      'c.Arguments = $"-c {input}";', // 9
      'c.WorkingDirectory = input;', // 10
      'c.ArgumentList.Add(input);', // 11
      'Process.Start(c);', // 12
    );
    expect(await lines(code)).toEqual([4, 5, 6, 8, 9, 10, 11, 12]);
  });

  it('a ProcessStartInfo field assigned in another method is still a ProcessStartInfo', async () => {
    const code = cs(
      'using System.Diagnostics;',
      'class A {',
      '  private ProcessStartInfo psi;',
      '  void Set(string cmd) { psi.Arguments = cmd; }',
      '}',
    );
    expect(await typesAt(code)).toEqual(['4:shell_execution']);
  });

  it('an empty ProcessStartInfo and reading its properties run nothing', async () => {
    const code = action('var psi = new ProcessStartInfo();', 'Console.WriteLine(psi.FileName);');
    expect(await lines(code)).toEqual([]);
  });
});

describe('C# code execution', () => {
  it.each([
    ['Roslyn EvaluateAsync of input', 'var r = CSharpScript.EvaluateAsync(input);'],
    ['Roslyn RunAsync, generic, awaited', 'var r = await CSharpScript.RunAsync<int>(input);'],
    [
      'fully-qualified Roslyn',
      'var r = Microsoft.CodeAnalysis.CSharp.Scripting.CSharpScript.EvaluateAsync("return " + input + ";");',
    ],
    [
      'CodeDom CompileAssemblyFromSource',
      'var res = new CSharpCodeProvider().CompileAssemblyFromSource(new CompilerParameters(), input);',
    ],
    ['Assembly.Load of computed bytes', 'var asm = System.Reflection.Assembly.Load(Convert.FromBase64String(input));'],
    ['Assembly.LoadFrom of a computed path', 'var asm = Assembly.LoadFrom(input);'],
    ['Type.GetType of request input', 'var t = Type.GetType(input);'],
    ['Activator.CreateInstance of an input name', 'var o = Activator.CreateInstance(other, input);'],
    ['NativeLibrary.Load of an input path', 'var h = System.Runtime.InteropServices.NativeLibrary.Load(input);'],
    ['a P/Invoke LoadLibrary of an input path', 'var h = LoadLibrary(input);'],
  ])('%s is blocked', async (_name, line) => {
    expect(await typesAt(action(line))).toContain('4:dynamic_code_execution');
  });

  it('a type name read from the query string two lines above is traced to its source', async () => {
    const code = action('string name = Request.Query["t"];', 'var t = Type.GetType(name);');
    const [f] = await critical(code);
    expect(f.line_number).toBe(5);
    expect(f.description).toMatch(/input from line 4$/);
  });

  it.each([
    ['a constant script', 'var r = await CSharpScript.EvaluateAsync<int>("1 + 2");'],
    ['a constant type name', 'var t = Type.GetType("System.Text.StringBuilder");'],
    ['a constant assembly name', 'var asm = Assembly.Load("System.Xml");'],
    ['a constant native library', 'var h = NativeLibrary.Load("libc.so.6");'],
    ['Activator of a typeof', 'var o = Activator.CreateInstance(typeof(System.Text.StringBuilder));'],
    ['nameof a dangerous method (a string)', 'var n = nameof(System.Diagnostics.Process.Start);'],
    ['an enum member passed as an argument', 'var b = Encoding.GetEncoding(System.Text.Encoding.UTF8.CodePage);'],
  ])('%s is admitted', async (_name, line) => {
    expect(await lines(action(line))).toEqual([]);
  });

  it('a constant script that itself starts a process is blocked (the constant code is scanned)', async () => {
    const code = action('CSharpScript.EvaluateAsync("System.Diagnostics.Process.Start(\\"ls\\")");');
    const [f] = await critical(code);
    expect(f).toMatchObject({ line_number: 4, type: 'dynamic_code_execution' });
    expect(f.description).toMatch(/the constant code it runs contains: Process execution/);
  });
});

describe('C# unsafe deserialisation', () => {
  it.each([
    ['BinaryFormatter', 'var o = new BinaryFormatter().Deserialize(Request.Body);'],
    [
      'BinaryFormatter behind IFormatter',
      'System.Runtime.Serialization.IFormatter f = new BinaryFormatter(); var o = f.Deserialize(s);',
    ],
    ['SoapFormatter', 'var o = new SoapFormatter().Deserialize(s);'],
    [
      'BinaryFormatter over bytes of request input',
      'var o = new BinaryFormatter().Deserialize(new MemoryStream(Encoding.UTF8.GetBytes(input)));',
    ],
    [
      'BinaryFormatter over constant bytes held in a variable (not followed: fail closed)',
      'var b = Encoding.UTF8.GetBytes("x"); var o = new BinaryFormatter().Deserialize(new MemoryStream(b));',
    ],
    [
      'an XmlSerializer for a type named by input, over a constant and then an input payload',
      'var x = new XmlSerializer(Type.GetType(input)); var o = x.Deserialize(new MemoryStream(Convert.FromBase64String(other)));',
    ],
    ['NetDataContractSerializer', 'var o = new NetDataContractSerializer().ReadObject(s);'],
    ['LosFormatter', 'var o = new System.Web.UI.LosFormatter().Deserialize(input);'],
    ['ObjectStateFormatter', 'var o = new ObjectStateFormatter().Deserialize(input);'],
    [
      'JavaScriptSerializer with a SimpleTypeResolver',
      'var o = new JavaScriptSerializer(new SimpleTypeResolver()).Deserialize<object>(input);',
    ],
    [
      'Json.NET TypeNameHandling.All in an initialiser',
      'var o = JsonConvert.DeserializeObject<object>(input, new JsonSerializerSettings { TypeNameHandling = TypeNameHandling.All });',
    ],
    [
      'Json.NET TypeNameHandling.Auto set on a serializer',
      'var js = new JsonSerializer(); js.TypeNameHandling = TypeNameHandling.Auto;',
    ],
    [
      'Json.NET TypeNameHandling from a cast number',
      'var st = new JsonSerializerSettings(); st.TypeNameHandling = (TypeNameHandling)3;',
    ],
    ['XmlSerializer of a type named by input', 'var t = Type.GetType(input); var x = new XmlSerializer(t);'],
    [
      'DataContractSerializer of a type named by input',
      'var x = new DataContractSerializer(Type.GetType(Request.Form["t"]));',
    ],
  ])('%s is blocked', async (_name, line) => {
    expect(await typesAt(action(line))).toContain('4:unsafe_deserialization');
  });

  it.each([
    [
      'Json.NET TypeNameHandling.None',
      'var st = new JsonSerializerSettings { TypeNameHandling = TypeNameHandling.None };',
    ],
    ['Json.NET without settings', 'var o = JsonConvert.DeserializeObject<Model>(input);'],
    ['JavaScriptSerializer without a resolver', 'var o = new JavaScriptSerializer().Deserialize<Model>(input);'],
    ['XmlSerializer of a typeof', 'var o = new XmlSerializer(typeof(Model)).Deserialize(s);'],
    ['DataContractSerializer of a typeof', 'var o = new DataContractSerializer(typeof(Model)).ReadObject(s);'],
    ['BinaryFormatter.Serialize (writing, not reading)', 'new BinaryFormatter().Serialize(s, input);'],
    ['System.Text.Json', 'var o = System.Text.Json.JsonSerializer.Deserialize<Model>(input);'],
    [
      'BinaryFormatter over bytes the snippet wrote',
      'var o = new BinaryFormatter().Deserialize(new MemoryStream(Encoding.UTF8.GetBytes("hardcoded")));',
    ],
    [
      'an input-typed XmlSerializer over a constant string',
      'var x = new XmlSerializer(typeof(Model)); var o = x.Deserialize(new System.IO.StringReader("<a/>"));',
    ],
  ])('%s is admitted', async (_name, line) => {
    expect(await lines(action(line))).toEqual([]);
  });

  it('Json.NET TypeNameHandling in a [JsonProperty] attribute is blocked at the attribute; None is admitted', async () => {
    const bad = cs(
      'class A {',
      '  [JsonProperty(ItemTypeNameHandling = TypeNameHandling.Objects)]',
      '  public List<object> Items { get; set; }',
      '  [Newtonsoft.Json.JsonProperty(TypeNameHandling = TypeNameHandling.All)]',
      '  public object P { get; set; }',
      '}',
    );
    expect(await typesAt(bad)).toEqual(['2:unsafe_deserialization', '4:unsafe_deserialization']);
    const ok = cs(
      'class A {',
      '  [JsonProperty(TypeNameHandling = TypeNameHandling.None)]',
      '  public object P { get; set; }',
      '}',
    );
    expect(await lines(ok)).toEqual([]);
  });

  it('a class of the snippet named BinaryFormatter is its own type, not the framework one', async () => {
    const code = cs(
      'class BinaryFormatter { public object Deserialize(string s) => s; }',
      'class A { object F(string s) => new BinaryFormatter().Deserialize(s); }',
    );
    expect(await lines(code)).toEqual([]);
  });
});

describe('C# hard-coded credentials', () => {
  it('an AWS key in a string is blocked like in the other languages', async () => {
    const found = await critical(action('var key = "AKIAIOSFODNN7EXAMPLE";'));
    expect(found).toContainEqual(expect.objectContaining({ line_number: 4, type: 'hardcoded_credential' }));
  });
});

describe('C# calls into a process, code or deserialization family that no row classifies (fail closed)', () => {
  it.each([
    ['an unknown Process member', 'var p = new System.Diagnostics.Process(); p.StartAsUser(input);', 'shell_execution'],
    ['an unknown CSharpScript member', 'var s = CSharpScript.Compile(input);', 'dynamic_code_execution'],
    [
      'an unknown BinaryFormatter member',
      'var o = new BinaryFormatter().DeserializeFrom(s);',
      'unsafe_deserialization',
    ],
  ])('%s is blocked', async (_name, line, type) => {
    expect(await typesAt(action(line))).toContain(`4:${type}`);
  });
  it.each([
    ['listing processes', 'var all = System.Diagnostics.Process.GetProcesses();'],
    ['waiting for and killing a process handle', 'void F(System.Diagnostics.Process p) { p.WaitForExit(); p.Kill(); }'],
    ['serializing with BinaryFormatter', 'new BinaryFormatter().Serialize(s, input);'],
  ])('%s is admitted', async (_name, line) => {
    expect(await lines(action(line))).toEqual([]);
  });
});
