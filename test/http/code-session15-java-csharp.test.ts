// Issue 24 (code scan), session 15, black-box rows for the Java and C# families semgrep-rules'
// tests showed missing: a Jackson read through a mapper with default typing or a class-id
// @JsonTypeInfo, a JAX-RS entity method under any media type (RESTEasy's Java-serialization
// provider), an RMI remote interface taking an object, a DataContractResolver subclass, .NET
// Remoting properties with typeFilterLevel Full, a Razor template from input, and a builder
// write reported with its flow. The same shapes with safe settings are admitted; bad input refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: Java and C# families (issue 24, session 15)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'java',
      'jackson-field-mapper-default-typing',
      'class Api {\n  private ObjectMapper mapper;\n  void init() {\n    mapper = new ObjectMapper();\n    mapper.enableDefaultTyping();\n  }\n  Object read(String s) throws Exception {\n    return mapper.readValue(s, Object.class);\n  }\n}',
      8,
      'unsafe_deserialization',
      /polymorphic typing by class name/,
    ],
    [
      'java',
      'jackson-typeinfo-class',
      'class Holder {\n  @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)\n  public Object v;\n}\nclass R {\n  Holder f(String s) throws Exception {\n    return new ObjectMapper().readValue(s, Holder.class);\n  }\n}',
      7,
      'unsafe_deserialization',
      /JsonTypeInfo/,
    ],
    [
      'java',
      'jaxrs-wildcard-consumes',
      'import javax.ws.rs.*;\n@Path("/")\npublic class Res {\n  @POST\n  @Consumes({"*/*"})\n  public void a(Order o) { }\n}',
      5,
      'unsafe_deserialization',
      /JAX-RS/,
    ],
    [
      'java',
      'jaxrs-no-consumes',
      'import javax.ws.rs.*;\n@Path("/")\npublic class Res {\n  @PUT\n  public void a(Order o) { }\n}',
      4,
      'unsafe_deserialization',
      /without @Consumes/,
    ],
    [
      'java',
      'rmi-object-parameter',
      'import java.rmi.*;\npublic interface Svc extends Remote {\n  void poke(Object o) throws RemoteException;\n}',
      3,
      'unsafe_deserialization',
      /RMI remote interface/,
    ],
    [
      'java',
      'builder-flow',
      'class H extends HttpServlet {\n  public void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {\n    String p = req.getParameter("q");\n    java.util.List<String> cmd = new java.util.ArrayList<>();\n    cmd.add("ls " + p);\n    new ProcessBuilder(cmd).start();\n  }\n}',
      6,
      'shell_execution',
      /input from lines 3, 5/,
    ],
    [
      'csharp',
      'data-contract-resolver',
      'class AnyTypes : DataContractResolver\n{\n}',
      1,
      'unsafe_deserialization',
      /DataContractResolver/,
    ],
    [
      'csharp',
      'remoting-properties-full',
      'class S {\n  void F() {\n    var p = new Hashtable();\n    p["typeFilterLevel"] = "Full";\n    var sink = new BinaryServerFormatterSinkProvider(p, null);\n  }\n}',
      5,
      'unsafe_deserialization',
      /typeFilterLevel/,
    ],
    [
      'csharp',
      'razor-parse-input',
      'using RazorEngine;\npublic class HomeController : Controller {\n  [HttpPost]\n  public ActionResult R(string tpl) {\n    ViewBag.Out = Razor.Parse(tpl);\n    return View();\n  }\n}',
      5,
      'dynamic_code_execution',
      /Razor template/,
    ],
  ] as Array<[string, string, string, number, string, RegExp | undefined]>)(
    '%s: %s is VERIFIED unsafe and not admitted',
    async (language, _name, code, line, type, description) => {
      const res = await verify({ code, language });
      expectBlockedAt(res, line, type, description);
    },
  );

  it.each([
    [
      'java',
      'a plain Jackson read',
      'class R {\n  Order f(String s) throws Exception {\n    return new ObjectMapper().readValue(s, Order.class);\n  }\n}',
    ],
    [
      'java',
      'a JAX-RS method consuming JSON only',
      'import javax.ws.rs.*;\n@Path("/")\n@Consumes(MediaType.APPLICATION_JSON)\npublic class Res {\n  @POST\n  public void a(Order o) { }\n}',
    ],
    [
      'java',
      'an RMI interface of primitives and strings',
      'import java.rmi.*;\npublic interface Svc extends Remote {\n  int count(String name, long id) throws RemoteException;\n}',
    ],
    [
      'csharp',
      'remoting properties with typeFilterLevel Low',
      'class S {\n  void F() {\n    var p = new Hashtable();\n    p["typeFilterLevel"] = "Low";\n    var sink = new BinaryServerFormatterSinkProvider(p, null);\n  }\n}',
    ],
    [
      'csharp',
      'a Razor template the snippet wrote',
      'using RazorEngine;\nclass T {\n  string F(object m) {\n    return Razor.Parse("<b>@Model.Name</b>", m);\n  }\n}',
    ],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: 'class A {}', language: 42 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/language/);
  });
});
