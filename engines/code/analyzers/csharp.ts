// C#: `using` namespaces, aliases (`using P = System.Diagnostics.Process;`) and `using static`,
// typed declarations (a local, field or parameter of type T holds a `T#` instance), `var`
// re-bindings, member and generic calls (`JsonConvert.DeserializeObject<T>(…)`), constructor
// calls, and property writes: `psi.FileName = x` and the object initialiser
// `new ProcessStartInfo { FileName = x }` are both the call `T#set_FileName(x)`, so the rule
// table matches a setter like any other call. Snippets without `using` lines still resolve the
// well-known classes they use (fail closed: a snippet's own class of the same name is a local type).
import type { Node } from 'web-tree-sitter';
import { type ExprOps, type Fact, lazySite, makeCallSite } from '../facts.js';
import { constValue, membersOf, OPAQUE, type Scope, type ScopeRange, type Value } from '../scopes.js';
import { dottedParts, unescapeLiteral, type SyntaxView } from '../syntax.js';
import { AnalysisBase, type Analyzer, dynamicMarker, resultName, type StringArms, type WantedNames } from './base.js';

const FUNCTION_TYPES = [
  'method_declaration',
  'constructor_declaration',
  'local_function_statement',
  'lambda_expression',
  'anonymous_method_expression',
];
const TYPE_DECLS = [
  'class_declaration',
  'interface_declaration',
  'struct_declaration',
  'record_declaration',
  'enum_declaration',
];
const BINDER_TYPES = ['using_directive', 'variable_declaration', 'foreach_statement', 'catch_declaration'];
const CALL_TYPES = ['invocation_expression', 'object_creation_expression', 'assignment_expression'];
const STATEMENTS = new Set([
  'local_declaration_statement',
  'expression_statement',
  'return_statement',
  'field_declaration',
  'property_declaration',
]);
/**
 * The value of an action parameter: ASP.NET binds it from the request (`[FromQuery]` and the
 * other `[From…]` attributes, or any parameter of a public method of a controller). Matched by
 * the `cs.*` rows that fire only for request input (a type or serializer chosen by it).
 */
export const REQUEST_INPUT = 'csharp.request-input';
/**
 * A stream or reader over bytes or text the snippet itself wrote (`new MemoryStream(
 * Encoding.UTF8.GetBytes("…"))`, `new StringReader("…")`): a deserializer reading it builds only
 * what the snippet chose, so the deserialization rows leave it alone.
 */
export const CONSTANT_DATA = 'csharp.constant-data';
const DATA_WRAPPERS = new Set(['System.IO.MemoryStream', 'System.IO.StringReader']);
const CONSTANT_BYTES = /^System\.Text\.Encoding\.\w+\.GetBytes$|^System\.Convert\.FromBase64String$/;
const FROM_ATTRIBUTE =
  /\[\s*(?:Microsoft\.AspNetCore\.Mvc\.)?From(?:Query|Body|Form|Route|Header|Services)?(?:Attribute)?\b/;
const CONTROLLER_BASE = /\b(?:Controller|ControllerBase|ApiController|PageModel|Hub)\b/;
const ACTION_ATTRIBUTE = /\[\s*(?:Http(?:Get|Post|Put|Delete|Patch)|Route|ApiController)\b/;
const TYPED_SERIALIZERS = new Set([
  'System.Xml.Serialization.XmlSerializer',
  'System.Runtime.Serialization.DataContractSerializer',
  'System.Runtime.Serialization.Json.DataContractJsonSerializer',
]);
const JSS = 'System.Web.Script.Serialization.JavaScriptSerializer';
const STRING_TYPES = new Set(['string_literal', 'verbatim_string_literal', 'raw_string_literal']);

/** Namespaces of classes snippets use without a `using` line (or under a `using` of another namespace). */
const WELL_KNOWN: Readonly<Record<string, string>> = {
  Process: 'System.Diagnostics',
  ProcessStartInfo: 'System.Diagnostics',
  BinaryFormatter: 'System.Runtime.Serialization.Formatters.Binary',
  SoapFormatter: 'System.Runtime.Serialization.Formatters.Soap',
  NetDataContractSerializer: 'System.Runtime.Serialization',
  IFormatter: 'System.Runtime.Serialization',
  DataContractSerializer: 'System.Runtime.Serialization',
  DataContractJsonSerializer: 'System.Runtime.Serialization.Json',
  LosFormatter: 'System.Web.UI',
  ObjectStateFormatter: 'System.Web.UI',
  JavaScriptSerializer: 'System.Web.Script.Serialization',
  SimpleTypeResolver: 'System.Web.Script.Serialization',
  JsonConvert: 'Newtonsoft.Json',
  JsonSerializer: 'Newtonsoft.Json',
  JsonSerializerSettings: 'Newtonsoft.Json',
  TypeNameHandling: 'Newtonsoft.Json',
  XmlSerializer: 'System.Xml.Serialization',
  TextBox: 'System.Web.UI.WebControls',
  MemoryStream: 'System.IO',
  StringReader: 'System.IO',
  Encoding: 'System.Text',
  ResourceReader: 'System.Resources',
  ResXResourceReader: 'System.Resources',
  CSharpCodeProvider: 'Microsoft.CSharp',
  VBCodeProvider: 'Microsoft.VisualBasic',
  CodeDomProvider: 'System.CodeDom.Compiler',
  CSharpScript: 'Microsoft.CodeAnalysis.CSharp.Scripting',
  Assembly: 'System.Reflection',
  DynamicMethod: 'System.Reflection.Emit',
  Activator: 'System',
  Type: 'System',
  AppDomain: 'System',
  Environment: 'System',
  Console: 'System',
  Convert: 'System',
  String: 'System',
  NativeLibrary: 'System.Runtime.InteropServices',
  Marshal: 'System.Runtime.InteropServices',
  Interaction: 'Microsoft.VisualBasic',
  Cli: 'CliWrap',
  Razor: 'RazorEngine',
  Engine: 'RazorEngine',
  RazorEngineService: 'RazorEngine.Templating',
};

/** Syntax facts of this analyzer (not identifiers: no snippet text can spell them). */
export const DATA_CONTRACT_RESOLVER = 'cs:data-contract-resolver';
export const REMOTING_PROPERTIES_FULL = 'cs:remoting-properties-type-filter-full';
/** A base list naming DataContractResolver (simple or qualified). */
const RESOLVER_BASE = /(?:^|[\s:,.])DataContractResolver\b/;
/** .NET Remoting channels and formatter sink providers: their properties dictionary sets typeFilterLevel. */
const REMOTING_TYPES = /(?:FormatterSinkProvider|Channel)$/;
/** `props["typeFilterLevel"] = v` and `props.Add("typeFilterLevel", v)`: the dictionary's name and the value's text. */
const TFL_INDEX = /(?<![\w$])([A-Za-z_]\w*)\s*\[\s*"typeFilterLevel"\s*\]\s*=\s*([^;\n]{1,80})/gi;
const TFL_ADD = /(?<![\w$])([A-Za-z_]\w*)\s*\.\s*Add\s*\(\s*"typeFilterLevel"\s*,\s*([^;\n]{1,80})/gi;
/** The same written inside an initializer passed directly (`new Hashtable { ["typeFilterLevel"] = "Full" }`). */
const TFL_INLINE = /"typeFilterLevel"\s*(?:\]\s*=|,)\s*([^;\n}]{1,80})/gi;
/** The one value that keeps Low: `"Low"` or `TypeFilterLevel.Low` (anything else may be Full: fail closed). */
const TFL_LOW = /^\s*(?:"low"|(?:[\w.]+\.)?TypeFilterLevel\s*\.\s*Low\b|0\b)/i;

/** C# keywords for the System types (`string` is `System.String`). */
const PREDEFINED: Readonly<Record<string, string>> = {
  string: 'System.String',
  object: 'System.Object',
};

/** The name a simple or generic name node stands for (`DeserializeObject` of `DeserializeObject<T>`). */
function simpleName(v: SyntaxView, n: Node): string {
  if (v.type(n) === 'generic_name') {
    const id = v.named(n).find((c) => v.type(c) === 'identifier');
    return id ? v.text(id) : v.text(n).replace(/<[\s\S]*$/, '');
  }
  return v.text(n);
}

class CSharpAnalysis extends AnalysisBase implements ExprOps {
  readonly identifierTypes = ['identifier'];
  readonly statementTypes = STATEMENTS;
  private readonly bound = new Set<number>();
  private readonly aliases = new Map<string, string>();
  private readonly staticClasses: string[] = [];
  private readonly namespaces: string[] = [];
  /** Types the snippet declares: simple name → its qualified name (`namespace` blocks around it). */
  private readonly localTypes = new Map<string, string>();

  run(_wanted: WantedNames): Fact[] {
    const v = this.view;
    const nodes = v.ofType(v.root, [...FUNCTION_TYPES, ...TYPE_DECLS, ...BINDER_TYPES, ...CALL_TYPES]);
    const types = nodes.map((n) => v.type(n));
    const ranges: ScopeRange[] = [];
    nodes.forEach((n, i) => {
      if (FUNCTION_TYPES.includes(types[i])) ranges.push({ start: n.startIndex, end: v.end(n), kind: 'function' });
    });
    this.buildScopes(ranges);
    const calls: Node[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      if (t === 'assignment_expression') {
        calls.push(n);
        this.pendAssignment(n);
      } else if (CALL_TYPES.includes(t)) calls.push(n);
      else if (t === 'using_directive') this.readUsing(n);
      else if (TYPE_DECLS.includes(t)) {
        const name = v.field(n, 'name');
        if (name) this.localTypes.set(v.text(name), this.qualified(n, v.text(name)));
      } else if (t === 'variable_declaration') {
        for (const d of v.named(n).filter((c) => v.type(c) === 'variable_declarator')) {
          const name = v.field(d, 'name') ?? v.named(d)[0];
          if (name) this.pendName(v.text(name), n);
        }
      } else this.pendScope(this.scopeOf(n), n);
    });
    for (const c of calls) this.callFact(c);
    this.methodGroups();
    if (_wanted.syntax.has(DATA_CONTRACT_RESOLVER)) this.resolverFacts();
    if (_wanted.syntax.has(REMOTING_PROPERTIES_FULL)) this.remotingFacts();
    return this.facts;
  }

  /**
   * A class deriving from DataContractResolver: it maps the type names a payload carries
   * (`xsi:type`) to types of its choosing, so a DataContractSerializer given it creates what the
   * payload names. Reported on the class line.
   */
  private resolverFacts(): void {
    const v = this.view;
    if (!v.source.includes('DataContractResolver')) return;
    for (const c of v.ofType(v.root, ['class_declaration', 'record_declaration'])) {
      const bases = v.named(c).find((n) => v.type(n) === 'base_list');
      if (bases && RESOLVER_BASE.test(v.text(bases)))
        this.fact({ kind: 'syntax', line: v.line(c), name: DATA_CONTRACT_RESOLVER, detail: v.text(bases) });
    }
  }

  /**
   * A .NET Remoting channel or formatter sink provider built with a properties dictionary whose
   * `typeFilterLevel` is anything but Low (`props["typeFilterLevel"] = "Full"`, `props.Add(…)`,
   * or an initializer passed in place): a remote caller then sends any serializable type.
   * Reported on the construction line. The key is matched without case, as Remoting reads it.
   */
  private remotingFacts(): void {
    const v = this.view;
    const src = v.source;
    if (!/typeFilterLevel/i.test(src)) return;
    const full = new Set<string>();
    for (const re of [TFL_INDEX, TFL_ADD]) for (const m of src.matchAll(re)) if (!TFL_LOW.test(m[2])) full.add(m[1]);
    for (const n of v.ofType(v.root, ['object_creation_expression'])) {
      const type = v.field(n, 'type');
      if (!type || !REMOTING_TYPES.test(v.text(type).replace(/<[\s\S]*$/, ''))) continue;
      const args = this.argNodes(v.field(n, 'arguments'));
      const hit = args.some(
        (a) =>
          (v.type(a) === 'identifier' && full.has(v.text(a))) ||
          [...v.text(a).matchAll(TFL_INLINE)].some((m) => !TFL_LOW.test(m[1])),
      );
      if (hit) this.fact({ kind: 'syntax', line: v.line(n), name: REMOTING_PROPERTIES_FULL, detail: v.text(type) });
    }
  }

  /** `Ns.Name` for a type declared inside `namespace Ns { … }` (or a file-scoped namespace). */
  private qualified(decl: Node, name: string): string {
    const v = this.view;
    const parts = [name];
    for (let p = decl.parent; p; p = p.parent) {
      const t = v.type(p);
      if (TYPE_DECLS.includes(t)) parts.unshift(v.text(v.field(p, 'name') ?? p));
      else if (t === 'namespace_declaration' || t === 'file_scoped_namespace_declaration') {
        const ns = v.field(p, 'name');
        if (ns) parts.unshift(v.text(ns).replace(/\s+/g, ''));
      }
    }
    if (parts.length === 1) {
      const fileScoped = v.ofType(v.root, ['file_scoped_namespace_declaration'])[0];
      const ns = fileScoped ? v.field(fileScoped, 'name') : null;
      if (ns && fileScoped.startIndex < decl.startIndex) parts.unshift(v.text(ns).replace(/\s+/g, ''));
    }
    return parts.join('.');
  }

  /**
   * A method passed or stored as a value (`Func<string, Process> f = Process.Start;`,
   * `names.Select(Assembly.Load)`): whoever holds it may call it with anything, so it is a
   * reference fact (matched against the critical call rows without their argument conditions).
   */
  private methodGroups(): void {
    const v = this.view;
    for (const n of v.ofType(v.root, ['argument', 'variable_declarator'])) {
      const e = v.type(n) === 'argument' ? v.args(n).at(-1) : this.declaratorValue(n);
      if (!e || v.type(e) !== 'member_access_expression') continue;
      // `nameof(Process.Start)` is the string "Start".
      const call = v.type(n) === 'argument' ? n.parent?.parent : null;
      const fn = call && v.type(call) === 'invocation_expression' ? v.field(call, 'function') : null;
      if (fn && v.text(fn) === 'nameof') continue;
      const parts = dottedParts(v.text(e).replace(/^global\s*::\s*/, ''));
      if (!parts || parts.length < 2 || !/^[A-Z]/.test(parts[parts.length - 1])) continue;
      const names = this.resolveDotted(parts, this.scopeOf(e)).filter((x) => x !== OPAQUE);
      if (names.length > 0) this.facts.push({ kind: 'reference', line: v.line(e), names });
    }
  }

  /** `x = expr` re-binds a local (not a property of an object initialiser, which callFact reads). */
  private pendAssignment(n: Node): void {
    const v = this.view;
    const left = v.field(n, 'left');
    if (!left || v.type(left) !== 'identifier' || this.inInitializer(n)) return;
    this.pendName(v.text(left), n);
  }

  private inInitializer(n: Node): boolean {
    const p = n.parent;
    return !!p && this.view.type(p) === 'initializer_expression';
  }

  private readUsing(n: Node): void {
    const v = this.view;
    const text = v.text(n).replace(/\s+/g, ' ');
    const m = /^(?:global )?using (static )?(?:([A-Za-z_]\w*) ?= ?)?([\w.]+(?:<[^;]*>)?) ?;/.exec(text);
    if (!m) return;
    const target = m[3].replace(/<[\s\S]*$/, '');
    if (m[2]) {
      this.aliases.set(m[2], target);
      this.knownNames.add(m[2]);
    } else if (m[1]) this.staticClasses.push(target);
    else this.namespaces.push(target);
  }

  /** Fully-qualified candidates of a simple or qualified type name. */
  typeRefs(name: string): string[] {
    const base = name
      .replace(/<[\s\S]*>/g, '')
      .replace(/\[[\s,]*\]/g, '')
      .replace(/[?\s]/g, '')
      .replace(/^global::/, '');
    if (PREDEFINED[base]) return [PREDEFINED[base]];
    if (base.includes('.')) {
      const [head, ...rest] = base.split('.');
      const alias = this.aliases.get(head);
      if (alias) return [[alias, ...rest].join('.')];
      // `Diagnostics.Process` under `using System;`: a namespace-relative name.
      const known = WELL_KNOWN[rest[rest.length - 1]];
      const out = [base, ...this.namespaces.map((ns) => `${ns}.${base}`)];
      if (known && base === `${known.split('.').pop()}.${rest[rest.length - 1]}`)
        out.push(`${known}.${rest[rest.length - 1]}`);
      return out;
    }
    const alias = this.aliases.get(base);
    if (alias) return [alias];
    // A type the snippet declares is that type (a stub of a framework class under the framework's
    // own namespace, as test suites write them, is the framework class).
    const local = this.localTypes.get(base);
    if (local) return [local];
    // The well-known class first (it names the finding), then the class under each `using` namespace.
    const known = WELL_KNOWN[base];
    const out = known ? [`${known}.${base}`] : [];
    for (const ns of this.namespaces) if (!out.includes(`${ns}.${base}`)) out.push(`${ns}.${base}`);
    if (out.length === 0) out.push(base);
    return out;
  }

  // ── bindings ──────────────────────────────────────────────────────────────────────────

  private bind(scope: Scope, name: string, expr: Node | null, value: Value = OPAQUE): void {
    this.knownNames.add(name);
    if (expr) this.scopes.bindExpr(scope, name, expr);
    else this.scopes.bindValue(scope, name, value);
  }

  /** A declaration of `name` with type `typeNode` (instances of the type) and optional initializer. */
  private bindTyped(scope: Scope, name: string, typeNode: Node | null, value: Node | null): void {
    const v = this.view;
    const implicit = !typeNode || v.type(typeNode) === 'implicit_type' || v.text(typeNode) === 'var';
    if (!implicit && v.type(typeNode) !== 'predefined_type')
      for (const t of this.typeRefs(v.text(typeNode))) this.bind(scope, name, null, `${t}#`);
    else if (!implicit && PREDEFINED[v.text(typeNode)])
      this.bind(scope, name, null, `${PREDEFINED[v.text(typeNode)]}#`);
    if (value) this.bind(scope, name, value);
    else if (!implicit) this.bind(scope, name, null);
  }

  /** The initial value of a variable_declarator (after its name; `= value` or an equals_value_clause). */
  private declaratorValue(d: Node): Node | null {
    const v = this.view;
    const name = v.field(d, 'name');
    for (const c of v.named(d)) {
      if (c.id === name?.id || v.type(c) === 'bracketed_argument_list' || v.type(c) === 'comment') continue;
      if (v.type(c) === 'equals_value_clause') return v.named(c)[0] ?? null;
      return c;
    }
    return null;
  }

  protected bindNode(n: Node): void {
    if (this.bound.has(n.id)) return;
    this.bound.add(n.id);
    const v = this.view;
    const t = v.type(n);
    const scope = this.scopeOf(n);
    if (FUNCTION_TYPES.includes(t)) {
      const params = v.field(n, 'parameters') ?? v.field(n, 'parameter');
      if (!params) return;
      if (v.type(params) === 'implicit_parameter' || v.type(params) === 'identifier') {
        this.bind(scope, v.text(params), null);
        return;
      }
      const action = t === 'method_declaration' && this.isAction(n);
      for (const p of v.named(params)) {
        const name = v.field(p, 'name');
        if (name && (action || FROM_ATTRIBUTE.test(v.text(p)))) this.bind(scope, v.text(name), null, REQUEST_INPUT);
        if (name) this.bindTyped(scope, v.text(name), v.field(p, 'type'), null);
        else if (v.type(p) === 'identifier' || v.type(p) === 'implicit_parameter') this.bind(scope, v.text(p), null);
      }
      return;
    }
    switch (t) {
      case 'variable_declaration': {
        const target = n.parent && v.type(n.parent) === 'field_declaration' ? this.scopes.root : scope;
        const type = v.field(n, 'type');
        for (const d of v.named(n).filter((c) => v.type(c) === 'variable_declarator')) {
          const name = v.field(d, 'name') ?? v.named(d)[0];
          if (name) this.bindTyped(target, v.text(name), type, this.declaratorValue(d));
        }
        return;
      }
      case 'assignment_expression': {
        const left = v.field(n, 'left');
        const right = v.field(n, 'right');
        if (left && right && v.type(left) === 'identifier') this.bind(scope, v.text(left), right);
        return;
      }
      case 'foreach_statement':
      case 'catch_declaration': {
        const name = v.field(n, 'left') ?? v.field(n, 'name');
        if (name && v.type(name) === 'identifier') this.bindTyped(scope, v.text(name), v.field(n, 'type'), null);
        return;
      }
    }
  }

  /**
   * A public method of a controller (a class deriving from Controller, ControllerBase, PageModel
   * or Hub, or marked [ApiController]), or a method with an [Http…]/[Route] attribute: its
   * parameters are bound from the request.
   */
  private isAction(method: Node): boolean {
    const v = this.view;
    const header = v.source.slice(method.startIndex, v.field(method, 'name')?.startIndex ?? method.startIndex);
    if (ACTION_ATTRIBUTE.test(header)) return true;
    if (!/\bpublic\b/.test(header) || /\bstatic\b/.test(header)) return false;
    const cls = v.ancestor(method, new Set(['class_declaration']), 8);
    if (!cls) return false;
    const body = v.field(cls, 'body');
    const classHeader = v.source.slice(cls.startIndex, body?.startIndex ?? cls.startIndex);
    return CONTROLLER_BASE.test(classHeader) || ACTION_ATTRIBUTE.test(classHeader);
  }

  // ── resolution ────────────────────────────────────────────────────────────────────────

  protected freeName(name: string): Value[] {
    return /^[A-Z]/.test(name) ? this.typeRefs(name) : [name];
  }

  evaluate(node: Node, scope: Scope): Value[] {
    const v = this.view;
    switch (v.type(node)) {
      case 'identifier':
        return this.lookupName(v.text(node), scope);
      case 'generic_name':
        return this.typeRefs(v.text(node));
      case 'this_expression':
      case 'this':
        return ['this'];
      case 'qualified_name':
      case 'member_access_expression': {
        const parts = dottedParts(v.text(node));
        if (parts) {
          const values = this.resolveDotted(parts, scope);
          // A web form's text box holds what the user typed (`categoryTextBox.Text`).
          if (parts.length >= 2 && parts[parts.length - 1] === 'Text') {
            const owner = this.resolveDotted(parts.slice(0, -1), scope);
            if (owner.some((o) => /TextBox#$/.test(o))) return [...values, REQUEST_INPUT];
          }
          return values;
        }
        const obj = v.field(node, 'expression') ?? v.field(node, 'qualifier');
        const name = v.field(node, 'name');
        if (!obj || !name) return [OPAQUE];
        return membersOf(this.evaluate(obj, scope), [simpleName(v, name)]);
      }
      case 'invocation_expression': {
        const args = this.argNodes(v.field(node, 'arguments'));
        const out: Value[] = this.methodNames(node, scope).map((m) =>
          resultName(m, () => (args[0] ? this.constant(args[0], scope) : null)),
        );
        // What a call computes from request input carries it (`Type.GetType(input)`, `Decode(input)`).
        if (this.carriesInput(args, scope)) out.push(REQUEST_INPUT);
        return out;
      }
      case 'object_creation_expression': {
        const type = v.field(node, 'type');
        if (!type) return [OPAQUE];
        const refs = this.typeRefs(v.text(type));
        // A JavaScriptSerializer given a type resolver instantiates the `__type` the payload names.
        const args = this.argNodes(v.field(node, 'arguments'));
        if (refs.includes(JSS) && args.length > 0) return [`${JSS}(resolver)#`];
        if (refs.some((r) => DATA_WRAPPERS.has(r)) && args.length === 1 && this.constantData(args[0], scope))
          return [CONSTANT_DATA];
        // A serializer of a type chosen by request input deserializes that type.
        const typed = refs.find((r) => TYPED_SERIALIZERS.has(r));
        if (typed && (this.carriesInput(args, scope) || args.some((a) => this.typeByComputedName(a, scope))))
          return [`${typed}(input)#`];
        return refs.map((t) => `${t}#`);
      }
      case 'parenthesized_expression': {
        const inner = v.args(node)[0];
        return inner ? this.evaluate(inner, scope) : [OPAQUE];
      }
      case 'cast_expression': {
        // `(Process)x` is a Process whatever x held.
        const type = v.field(node, 'type');
        const value = v.field(node, 'value');
        return [
          ...(type && v.type(type) !== 'predefined_type' ? this.typeRefs(v.text(type)).map((t) => `${t}#`) : []),
          ...(value ? this.evaluate(value, scope) : [OPAQUE]),
        ];
      }
      case 'await_expression': {
        const inner = v.args(node)[0];
        return inner ? this.evaluate(inner, scope) : [OPAQUE];
      }
      case 'string_literal':
      case 'verbatim_string_literal':
      case 'raw_string_literal':
      case 'interpolated_string_expression':
      case 'binary_expression': {
        const c = this.constant(node, scope);
        if (c !== null) return [constValue(c)];
        const out = this.dynamicString(node, scope) ? [dynamicMarker(v.text(node))] : [OPAQUE];
        const parts =
          v.type(node) === 'binary_expression'
            ? v.args(node)
            : v.ofType(node, ['interpolation']).flatMap((i) => v.args(i));
        if (this.carriesInput(parts, scope)) out.push(REQUEST_INPUT);
        return out;
      }
      case 'conditional_expression': {
        const a = v.field(node, 'consequence');
        const b = v.field(node, 'alternative');
        return [...(a ? this.evaluate(a, scope) : []), ...(b ? this.evaluate(b, scope) : [])];
      }
      default:
        return [OPAQUE];
    }
  }

  /** A constant string, or bytes encoded from one (`Encoding.UTF8.GetBytes("…")`, `Convert.FromBase64String("…")`). */
  private constantData(node: Node, scope: Scope): boolean {
    const v = this.view;
    if (this.constant(node, scope) !== null) return true;
    if (v.type(node) !== 'invocation_expression') return false;
    const args = this.argNodes(v.field(node, 'arguments'));
    return (
      args.length === 1 &&
      this.constant(args[0], scope) !== null &&
      this.methodNames(node, scope).some((m) => CONSTANT_BYTES.test(m))
    );
  }

  /** Some expression among `nodes` may hold request input (an action parameter, or a value computed from one). */
  /**
   * Session 16 (red team): `Type.GetType(t)` with a name the snippet does not show (a parameter,
   * a field): a serializer built for it deserializes whatever type the name says (fail closed).
   */
  private typeByComputedName(n: Node, scope: Scope): boolean {
    const v = this.view;
    if (v.type(n) === 'argument') return v.args(n).some((c) => this.typeByComputedName(c, scope));
    if (v.type(n) !== 'invocation_expression') return false;
    if (!this.methodNames(n, scope).some((m) => m === 'System.Type.GetType' || m.endsWith('#GetType'))) return false;
    const first = this.argNodes(v.field(n, 'arguments'))[0];
    return first !== undefined && this.constant(first, scope) === null;
  }

  private carriesInput(nodes: readonly Node[], scope: Scope): boolean {
    return nodes.some((n) => this.evaluate(n, scope).includes(REQUEST_INPUT));
  }

  /** Values of `a.b.c`; `this.f` is the field f. */
  private resolveDotted(parts: readonly string[], scope: Scope): Value[] {
    const [head, rest] =
      parts[0] === 'this' && parts.length >= 2 ? [parts[1], parts.slice(2)] : [parts[0], parts.slice(1)];
    // A namespace-qualified type (`System.Diagnostics.Process.Start`): the longest type prefix.
    if (!this.boundSomewhere(head) && /^[A-Z]/.test(head) && rest.length > 0) {
      for (let i = parts.length - 1; i >= 1; i--) {
        const typeName = parts.slice(0, i + 1).join('.');
        if (WELL_KNOWN[parts[i]] === parts.slice(0, i).join('.'))
          return parts.length === i + 1 ? [typeName] : membersOf([typeName], parts.slice(i + 1));
      }
    }
    const base = this.lookupName(head, scope);
    return rest.length === 0 ? base : membersOf(base, rest);
  }

  /** Candidate names of the method an invocation_expression calls. */
  private methodNames(node: Node, scope: Scope): Value[] {
    const v = this.view;
    const fn = v.field(node, 'function');
    if (!fn) return [];
    const t = v.type(fn);
    if (t === 'identifier' || t === 'generic_name') {
      const name = simpleName(v, fn);
      return [...this.staticClasses.map((c) => `${c}.${name}`), `this.${name}`];
    }
    if (t === 'member_access_expression') {
      const obj = v.field(fn, 'expression');
      const name = v.field(fn, 'name');
      if (!obj || !name) return [];
      const text = v.text(obj).replace(/^global\s*::\s*/, '');
      const parts = dottedParts(text);
      const base = parts ? this.resolveDotted(parts, scope) : this.evaluate(obj, scope);
      return membersOf(base, [simpleName(v, name)]);
    }
    return [];
  }

  private argNodes(argsNode: Node | null): Node[] {
    if (!argsNode) return [];
    const v = this.view;
    // `argument` wraps the expression (and a `name:` colon or `ref`/`out` modifier).
    return v.args(argsNode).map((a) => (v.type(a) === 'argument' ? (v.args(a).at(-1) ?? a) : a));
  }

  protected readonly arms: StringArms = {
    binary: 'binary_expression',
    concat: '+',
    paren: 'parenthesized_expression',
    names: ['identifier'],
  };

  protected ownConstant(node: Node): string | null {
    const v = this.view;
    const t = v.type(node);
    if (!STRING_TYPES.has(t)) return null;
    const text = v.text(node);
    if (t === 'verbatim_string_literal') return text.slice(2, -1).replace(/""/g, '"');
    if (t === 'raw_string_literal') return text.replace(/^"+/, '').replace(/"+$/, '');
    if (text.endsWith('u8')) return unescapeLiteral(text.slice(1, -3));
    return unescapeLiteral(text.slice(1, -1));
  }

  protected ownDynamicString(node: Node, scope: Scope): boolean {
    const v = this.view;
    const t = v.type(node);
    if (t === 'interpolated_string_expression') return true;
    if (t !== 'invocation_expression') return false;
    // string.Format("… {0}", x), string.Concat / Join, "…".Replace(…) on a string.
    const names = this.methodNames(node, scope);
    if (names.some((n) => /^System\.String\.(?:Format|Concat|Join)$/.test(n))) return true;
    const fn = v.field(node, 'function');
    const obj = fn && v.type(fn) === 'member_access_expression' ? v.field(fn, 'expression') : null;
    return !!obj && names.some((n) => /\.(?:Replace|Insert|Trim|ToLower|ToUpper|Substring)$/.test(n))
      ? this.stringy(obj, scope)
      : false;
  }

  // ── facts ─────────────────────────────────────────────────────────────────────────────

  private callFact(node: Node): void {
    const v = this.view;
    const scope = this.scopeOf(node);
    const t = v.type(node);
    let names: Value[];
    let args: Node[];
    let at: Node = node;
    if (t === 'assignment_expression') {
      // A property write is the setter call `T#set_Name(value)`.
      const left = v.field(node, 'left');
      const right = v.field(node, 'right');
      if (!left || !right) return;
      const lt = v.type(left);
      let owners: Value[];
      let prop: string;
      if (lt === 'member_access_expression') {
        const obj = v.field(left, 'expression');
        const name = v.field(left, 'name');
        if (!obj || !name) return;
        owners = this.evaluate(obj, scope);
        prop = simpleName(v, name);
      } else if (lt === 'identifier' && node.parent && v.type(node.parent) === 'attribute_argument') {
        // `[JsonProperty(TypeNameHandling = …)]`: a named argument of an attribute sets its property.
        const attribute = node.parent.parent?.parent;
        const name = attribute && v.type(attribute) === 'attribute' ? v.field(attribute, 'name') : null;
        if (!name) return;
        owners = this.typeRefs(v.text(name)).map((c) => `${c}#`);
        prop = v.text(left);
      } else if (lt === 'identifier' && this.inInitializer(node)) {
        const creation = node.parent?.parent;
        const type = creation && v.type(creation) === 'object_creation_expression' ? v.field(creation, 'type') : null;
        if (!type) return;
        owners = this.typeRefs(v.text(type)).map((c) => `${c}#`);
        prop = v.text(left);
      } else return;
      names = membersOf(owners, [`set_${prop}`]);
      args = [right];
    } else if (t === 'object_creation_expression') {
      const type = v.field(node, 'type');
      names = type ? this.typeRefs(v.text(type)) : [];
      args = this.argNodes(v.field(node, 'arguments'));
    } else {
      names = this.methodNames(node, scope);
      args = this.argNodes(v.field(node, 'arguments'));
      // A chained call is reported on the line of its method name.
      const fn = v.field(node, 'function');
      if (fn && v.type(fn) === 'member_access_expression') at = v.field(fn, 'name') ?? node;
    }
    if (names.length === 0) return;
    this.facts.push({
      kind: 'call',
      line: v.line(at),
      names,
      site: lazySite(() => makeCallSite({ node, scope, ops: this, args })),
    });
  }
}

export const csharpAnalyzer: Analyzer = {
  analyze: (view: SyntaxView, wanted: WantedNames) => new CSharpAnalysis(view).run(wanted),
};
