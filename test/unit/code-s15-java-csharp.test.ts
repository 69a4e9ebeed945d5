// Issue 24, session 15 (Java and C# families semgrep-rules' tests showed missing): Jackson
// polymorphic typing reaching a read (default typing on a mapper, `@JsonTypeInfo` with class
// ids), JAX-RS resource methods that take an entity under any media type (RESTEasy's default
// providers include Java serialization), RMI remote interfaces whose methods take objects,
// C# DataContractResolver subclasses, .NET Remoting properties with typeFilterLevel Full,
// RazorEngine templates from input, and flows through builders (`args.add(x)` before a
// ProcessBuilder), for-each loops and re-assigned locals. Each dangerous row has evasion
// variants (another spelling, a field set in another method, a builder, no imports) and the safe
// shapes beside it. Written on our own snippets, never a suite's text.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';
import { inputSources } from '../../engines/code/flows.js';

const scan = async (code: string, language: string) => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string; is_valid?: boolean };
  // A row that does not parse would pass every "no finding" check: each row must parse.
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  return fields;
};
const critical = async (code: string, language: string): Promise<Issue[]> =>
  ((await scan(code, language)).issues ?? []).filter((i) => i.severity === 'critical');

const JAVA_MAPPER_LOCAL = `import com.fasterxml.jackson.databind.ObjectMapper;
class A {
  Object f(String body) throws Exception {
    ObjectMapper m = new ObjectMapper();
    m.enableDefaultTyping();
    return m.readValue(body, Object.class);
  }
}`;
const JAVA_MAPPER_FIELD = `class Api {
  private ObjectMapper mapper;
  void init() {
    mapper = new ObjectMapper();
    mapper.activateDefaultTyping(LaissezFaireSubTypeValidator.instance);
  }
  Object read(String s) throws Exception {
    return mapper
        .readValue(s, Holder.class);
  }
}`;
const JAVA_TYPEINFO_FIELD = `import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.ObjectMapper;
class Holder {
  @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
  public Object value;
}
class R {
  Holder f(byte[] b) throws Exception {
    return new ObjectMapper().readValue(b, Holder.class);
  }
}`;
const JAVA_TYPEINFO_MINIMAL = `@JsonTypeInfo(include = JsonTypeInfo.As.PROPERTY, use = Id.MINIMAL_CLASS)
abstract class Shape {}
class R {
  ObjectMapper om = new ObjectMapper();
  Shape f(java.io.InputStream in) throws Exception {
    return om.readerFor(Shape.class).readValue(in);
  }
}`;
const JAVA_JSONMAPPER_BUILDER = `import com.fasterxml.jackson.databind.json.JsonMapper;
class R {
  Object f(String s) throws Exception {
    JsonMapper jm = JsonMapper.builder().activateDefaultTyping(ptv, ObjectMapper.DefaultTyping.EVERYTHING).build();
    return jm.readValue(s, Object.class);
  }
}`;

const JAXRS_WILDCARD = `import javax.ws.rs.*;
import javax.ws.rs.core.*;
@Path("/api")
public class Res {
  @POST
  @Path("/a")
  @Consumes(MediaType.WILDCARD)
  public String a(Order o) { return o.id; }
}`;
const JAXRS_NO_CONSUMES = `import jakarta.ws.rs.*;
@Path("/api")
public class Res {
  @PUT
  @Path("/b")
  public void b(@PathParam("id") String id, Order o) { save(id, o); }
}`;
const JAXRS_SERIALIZED = `@Path("/")
public class Res {
  @POST
  @Consumes({"application/json", "application/x-java-serialized-object"})
  public void c(Order o) { }
}`;
const JAXRS_APP_STAR = `import javax.ws.rs.*;
@Path("/")
@Consumes("application/*")
public class Res {
  @PATCH
  public void d(Order o) { }
}`;

const RMI_OBJECT = `import java.rmi.Remote;
import java.rmi.RemoteException;
public interface Svc extends Remote {
  int count(long id) throws RemoteException;
  void store(Object o) throws RemoteException;
}`;
const RMI_CLASS_PARAM = `public interface Svc extends java.rmi.Remote {
  void submit(Ticket t) throws java.rmi.RemoteException;
}`;
const RMI_GENERIC = `import java.rmi.*;
import java.util.List;
interface Svc extends Other, Remote {
  void all(List<String> names) throws RemoteException;
}`;

const CS_RESOLVER = `using System.Runtime.Serialization;
namespace N {
  public class AnyTypes : DataContractResolver {
    public override Type ResolveName(string n, string ns, Type t, DataContractResolver k) { return Type.GetType(n); }
  }
}`;
const CS_RESOLVER_QUALIFIED = `class R : System.Runtime.Serialization.DataContractResolver
{
}`;
const CS_REMOTING_DICT = `class S {
  void F() {
    IDictionary props = new Hashtable();
    props["typeFilterLevel"] = "Full";
    var sink = new BinaryServerFormatterSinkProvider(props, null);
  }
}`;
const CS_REMOTING_ADD = `class S {
  void F() {
    var p = new Hashtable();
    p.Add("TypeFilterLevel", "full");
    var chan = new TcpChannel(p, null, new SoapServerFormatterSinkProvider(p, null));
  }
}`;
const CS_RAZOR = `using RazorEngine;
public class HomeController : Controller {
  [HttpPost]
  public ActionResult Render(string tpl) {
    ViewBag.Out = Razor.Parse(tpl);
    return View();
  }
}`;
const CS_RAZOR_SERVICE = `using RazorEngine;
using RazorEngine.Templating;
class T {
  string F(string source) {
    return Engine.Razor.RunCompile(source, "key", null, new { A = 1 });
  }
}`;
const CS_RAZORLIGHT = `class T {
  async Task<string> F(RazorLightEngine engine, string body) {
    return await engine.CompileRenderStringAsync("k", body, model);
  }
}`;

const JAVA_BUILDER_FLOW = `class H extends HttpServlet {
  public void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    String p = req.getParameter("q");
    java.util.List<String> cmd = new java.util.ArrayList<>();
    cmd.add("sh");
    cmd.add("-c");
    cmd.add("ls " + p);
    ProcessBuilder pb = new ProcessBuilder();
    pb.command(cmd);
    pb.start();
  }
}`;
const JAVA_FOREACH_FLOW = `class H extends HttpServlet {
  public void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
    Cookie[] all = request.getCookies();
    String v = "";
    for (Cookie c : all) {
      if (c.getName().equals("x")) v = java.net.URLDecoder.decode(c.getValue(), "UTF-8");
    }
    String w = v;
    java.util.List<String> args = new java.util.ArrayList<String>();
    args.add("echo " + w);
    ProcessBuilder pb = new ProcessBuilder(args);
  }
}`;
const JAVA_REASSIGNED_BUILDER = `class C {
  public static void run(@RequestParam String host) throws Exception {
    String line = "ping " + host;
    Process proc;
    proc = new ProcessBuilder(new String[] {"sh", "-c", line});
    proc.start();
  }
}`;

describe('issue 24, session 15: Java and C# families semgrep-rules showed missing', () => {
  it.each([
    ['java-jackson-default-typing-local', 'java', JAVA_MAPPER_LOCAL, 6, 'unsafe_deserialization'],
    ['EVADE java-jackson-field-set-elsewhere', 'java', JAVA_MAPPER_FIELD, 9, 'unsafe_deserialization'],
    ['java-jackson-typeinfo-class', 'java', JAVA_TYPEINFO_FIELD, 9, 'unsafe_deserialization'],
    ['EVADE java-jackson-typeinfo-minimal-reader', 'java', JAVA_TYPEINFO_MINIMAL, 6, 'unsafe_deserialization'],
    ['EVADE java-jsonmapper-builder', 'java', JAVA_JSONMAPPER_BUILDER, 5, 'unsafe_deserialization'],
    ['java-jaxrs-wildcard', 'java', JAXRS_WILDCARD, 7, 'unsafe_deserialization'],
    ['java-jaxrs-no-consumes', 'java', JAXRS_NO_CONSUMES, 4, 'unsafe_deserialization'],
    ['EVADE java-jaxrs-serialized-type', 'java', JAXRS_SERIALIZED, 4, 'unsafe_deserialization'],
    ['EVADE java-jaxrs-class-app-star', 'java', JAXRS_APP_STAR, 3, 'unsafe_deserialization'],
    ['java-rmi-object-param', 'java', RMI_OBJECT, 5, 'unsafe_deserialization'],
    ['EVADE java-rmi-qualified-class-param', 'java', RMI_CLASS_PARAM, 2, 'unsafe_deserialization'],
    ['EVADE java-rmi-generic-second-interface', 'java', RMI_GENERIC, 4, 'unsafe_deserialization'],
    ['cs-data-contract-resolver', 'csharp', CS_RESOLVER, 3, 'unsafe_deserialization'],
    ['EVADE cs-data-contract-resolver-qualified', 'csharp', CS_RESOLVER_QUALIFIED, 1, 'unsafe_deserialization'],
    ['cs-remoting-props-full', 'csharp', CS_REMOTING_DICT, 5, 'unsafe_deserialization'],
    ['EVADE cs-remoting-props-add-case', 'csharp', CS_REMOTING_ADD, 5, 'unsafe_deserialization'],
    ['cs-razor-parse', 'csharp', CS_RAZOR, 5, 'dynamic_code_execution'],
    ['EVADE cs-razor-service', 'csharp', CS_RAZOR_SERVICE, 5, 'dynamic_code_execution'],
    ['EVADE cs-razorlight', 'csharp', CS_RAZORLIGHT, 3, 'dynamic_code_execution'],
    ['EVADE java-reassigned-builder', 'java', JAVA_REASSIGNED_BUILDER, 6, 'shell_execution'],
  ])('%s (%s) is critical on its line', async (_name, language, code, line, type) => {
    const found = await critical(code, language);
    expect(
      found.some((i) => i.line_number === line && i.type === type),
      JSON.stringify(found),
    ).toBe(true);
  });

  it.each([
    [
      'java-jackson-plain',
      'java',
      'import com.fasterxml.jackson.databind.ObjectMapper;\nclass A {\n  Object f(String s) throws Exception {\n    return new ObjectMapper().readValue(s, Order.class);\n  }\n}',
    ],
    [
      'java-jackson-typeinfo-name',
      'java',
      '@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)\n@JsonSubTypes({@JsonSubTypes.Type(value = Dog.class, name = "dog")})\nabstract class Animal {}\nclass R {\n  Animal f(String s) throws Exception {\n    return new ObjectMapper().readValue(s, Animal.class);\n  }\n}',
    ],
    [
      'java-jaxrs-json-method',
      'java',
      'import javax.ws.rs.*;\n@Path("/")\npublic class Res {\n  @POST\n  @Consumes(MediaType.APPLICATION_JSON)\n  public void a(Order o) { }\n}',
    ],
    [
      'java-jaxrs-json-class',
      'java',
      'import javax.ws.rs.*;\n@Path("/")\n@Consumes({"application/json", "text/xml"})\npublic class Res {\n  @POST\n  public void a(Order o) { }\n}',
    ],
    [
      'java-jaxrs-no-entity',
      'java',
      'import javax.ws.rs.*;\n@Path("/")\npublic class Res {\n  @POST\n  public void a(@FormParam("n") String n, @Context UriInfo u) { }\n  @GET\n  public String b() { return "x"; }\n}',
    ],
    ['java-retrofit-post', 'java', 'interface Api {\n  @POST("users")\n  Call<User> create(@Body User u);\n}'],
    [
      'java-rmi-primitives-and-strings',
      'java',
      'import java.rmi.*;\npublic interface Svc extends Remote {\n  boolean a(String s, long id) throws RemoteException;\n  void b(Integer n, byte[] data, String[] names) throws RemoteException;\n}',
    ],
    ['java-plain-interface-object', 'java', 'interface Store {\n  void put(Object o);\n}'],
    [
      'cs-other-resolver-base',
      'csharp',
      'class R : MyResolverBase {\n  public override Type Resolve(string n) { return typeof(int); }\n}',
    ],
    [
      'cs-remoting-props-low',
      'csharp',
      'class S {\n  void F() {\n    var p = new Hashtable();\n    p["typeFilterLevel"] = "Low";\n    var sink = new BinaryServerFormatterSinkProvider(p, null);\n  }\n}',
    ],
    [
      'cs-razor-constant',
      'csharp',
      'using RazorEngine;\nclass T {\n  string F(object m) {\n    return Razor.Parse("<p>@Model.Name</p>", m);\n  }\n}',
    ],
  ])('%s (%s) has no critical finding', async (_name, language, code) => {
    expect(await critical(code, language)).toEqual([]);
  });

  it('a builder write between the input and the sink is reported with the flow (Java)', async () => {
    const found = await critical(JAVA_BUILDER_FLOW, 'java');
    const command = found.find((i) => i.line_number === 9);
    expect(command?.description, JSON.stringify(found)).toMatch(/input from lines 3, 7\b/);
  });

  it('input reaching a builder through a for-each loop and two locals is followed (Java)', async () => {
    const found = await critical(JAVA_FOREACH_FLOW, 'java');
    const sink = found.find((i) => i.line_number === 11);
    expect(sink?.description, JSON.stringify(found)).toMatch(/input from lines 3, .*\b10\b/);
  });

  it('for-each bindings are followed in C# and Python too, and a constant loop stays without input', () => {
    const cs = 'void F() {\n  foreach (var k in Request.Query.Keys)\n    Process.Start(k);\n}';
    expect(inputSources(cs, 'csharp', 3)).toEqual([2]);
    const py = 'def f():\n    for n in request.args.getlist("n"):\n        os.system(n)';
    expect(inputSources(py, 'python', 3)).toEqual([2]);
    const constant = 'def f():\n    for n in ["a", "b"]:\n        os.system(n)';
    expect(inputSources(constant, 'python', 3)).toEqual([]);
  });
});

// owasp-benchmark-python's safe code-injection cases: eval/exec of request data that a guard has
// checked to be one plain quoted string literal (starts and ends with the quote, none inside),
// so evaluating it builds a string and runs nothing. Recognised only in that exact logical shape,
// with the variable never re-bound after the guard; every weaker or re-bound variant stays blocked.
const guarded = (guard: string, after = '', sink = 'eval(bar)') =>
  `from flask import request\ndef view():\n    bar = request.args.get("x")\n    ${guard}\n        return "bad"\n${after}    try:\n        return ${sink}\n    except Exception:\n        return "err"`;
const QUOTE_GUARD = `if not bar.startswith("'") or not bar.endswith("'") or "'" in bar[1:-1]:`;

describe('issue 24, session 15: eval of a value checked to be one plain string literal (Python)', () => {
  it.each([
    ['startswith/endswith/inner', guarded(QUOTE_GUARD)],
    ['double quote, other order', guarded(`if '"' in bar[1:-1] or not bar.endswith('"') or not bar.startswith('"'):`)],
    ['index comparisons and count', guarded(`if bar[0] != "'" or bar[-1] != "'" or bar.count("'") != 2:`)],
    [
      'exec, extra disjunct',
      guarded(
        `if len(bar) > 100 or not bar.startswith("'") or not bar.endswith("'") or "'" in bar[1:-1]:`,
        '',
        'exec(bar)',
      ),
    ],
  ])('%s: admitted', async (_name, code) => {
    expect(await critical(code, 'python')).toEqual([]);
  });

  it.each([
    ['EVADE no inner-quote check', guarded(`if not bar.startswith("'") or not bar.endswith("'"):`)],
    ['EVADE and instead of or', guarded(`if not bar.startswith("'") and not bar.endswith("'") or "'" in bar[1:-1]:`)],
    ['EVADE mixed quotes', guarded(`if not bar.startswith("'") or not bar.endswith('"') or "'" in bar[1:-1]:`)],
    ['EVADE re-bound after the guard', guarded(QUOTE_GUARD, '    bar = request.args.get("y")\n')],
    ['EVADE augmented after the guard', guarded(QUOTE_GUARD, '    bar += request.args.get("y")\n')],
    ['EVADE checks another name', guarded(`if not baz.startswith("'") or not baz.endswith("'") or "'" in baz[1:-1]:`)],
    [
      'EVADE guard body does not leave',
      guarded(QUOTE_GUARD.replace(':', ':\n        log("x")'), '').replace('        return "bad"\n', ''),
    ],
    [
      'EVADE prefix quote (f-string)',
      guarded(`if not bar.startswith("f'") or not bar.endswith("'") or "'" in bar[2:-1]:`),
    ],
    [
      'EVADE own startswith',
      `class S(str):\n    def startswith(self, p):\n        return True\n${guarded(QUOTE_GUARD)}`,
    ],
  ])('%s: still blocked', async (_name, code) => {
    const found = await critical(code, 'python');
    expect(
      found.some((i) => i.type === 'dynamic_code_execution'),
      JSON.stringify(found),
    ).toBe(true);
  });
});
