// Java: single-type, on-demand (`p.*`) and static imports, the implicit `java.lang`, typed
// declarations (a local, field or parameter of type T holds a `T#` instance), re-bindings,
// chained calls (`Runtime.getRuntime().exec`), constructor calls (`new ProcessBuilder(...)`).
// Snippets without imports still resolve the well-known classes they use.
import type { Node } from 'web-tree-sitter';
import { type ExprOps, type Fact, lazySite, makeCallSite } from '../facts.js';
import { constValue, isRef, membersOf, OPAQUE, type Scope, type ScopeRange, type Value } from '../scopes.js';
import { dottedParts, unescapeLiteral, type SyntaxView } from '../syntax.js';
import {
  AnalysisBase,
  type StringArms,
  type Analyzer,
  calleePrefix,
  dynamicMarker,
  occurrences,
  patternWords,
  plainCallee,
  sharedStarts,
  resultName,
  type PatternWords,
  type WantedNames,
} from './base.js';

/** The stream parameter of a readObject hook (serializationHook): its reads are not a new deserialization. */
const HOOK_STREAM = 'java.io.ObjectInputStream(hook)#';
/** A SnakeYAML Yaml built with a SafeConstructor (safeYaml): its loads are not reported. */
const SAFE_YAML = 'org.yaml.snakeyaml.Yaml(SafeConstructor)#';
/**
 * Expression-language objects compiled from a constant string (`parser.parseExpression("1+1")`,
 * `new ExpressionCompiler("x")`): their evaluation runs code the snippet itself wrote, so the
 * evaluation rules (which name the non-constant forms) do not see them.
 */
const CONSTANT_EXPRESSION = 'expression(constant)#';
/** A Kryo from a factory method of the snippet that requires class registration (registeredKryo). */
const REGISTERED_KRYO = 'com.esotericsoftware.kryo.Kryo(registrationRequired)#';
const COMPILING_METHODS = new Set(['parseExpression', 'parseRaw', 'compile', 'compiledScript', 'compileTemplate']);
const COMPILING_CLASSES = new Set([
  'org.mvel2.compiler.ExpressionCompiler',
  'org.mvel2.compiler.CompiledAccExpression',
  'org.mvel2.templates.TemplateCompiler',
]);
const FUNCTION_TYPES = ['method_declaration', 'constructor_declaration', 'lambda_expression'];
const TYPE_DECLS = ['class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration'];
const BINDER_TYPES = [
  'import_declaration',
  'assignment_expression',
  'local_variable_declaration',
  'field_declaration',
  'catch_formal_parameter',
  'resource',
  'enhanced_for_statement',
];
const CALL_TYPES = ['method_invocation', 'object_creation_expression'];
const STATEMENTS = new Set([
  'local_variable_declaration',
  'expression_statement',
  'return_statement',
  'field_declaration',
]);

const JAVA_LANG = new Set(
  'Runtime Process ProcessBuilder System String StringBuilder StringBuffer Class ClassLoader Thread Object Math Integer Long Double Boolean Character Byte Short Float Exception RuntimeException Throwable Error Iterable Comparable Runnable Override Deprecated SuppressWarnings'.split(
    ' ',
  ),
);

/** Packages of classes snippets often use without importing them. */
const WELL_KNOWN: Readonly<Record<string, string>> = {
  ObjectInputStream: 'java.io',
  ObjectOutputStream: 'java.io',
  File: 'java.io',
  FileInputStream: 'java.io',
  XMLDecoder: 'java.beans',
  ScriptEngineManager: 'javax.script',
  ScriptEngine: 'javax.script',
  MessageDigest: 'java.security',
  Files: 'java.nio.file',
  Paths: 'java.nio.file',
  Socket: 'java.net',
  ServerSocket: 'java.net',
  DatagramSocket: 'java.net',
  URL: 'java.net',
  HttpClient: 'java.net.http',
  SocketChannel: 'java.nio.channels',
  Statement: 'java.sql',
  PreparedStatement: 'java.sql',
  Connection: 'java.sql',
  DriverManager: 'java.sql',
  XStream: 'com.thoughtworks.xstream',
  Yaml: 'org.yaml.snakeyaml',
  DigestUtils: 'org.apache.commons.codec.digest',
  FileUtils: 'org.apache.commons.io',
  SerializationUtils: 'org.apache.commons.lang3',
  GroovyShell: 'groovy.lang',
  ExpressionParser: 'org.springframework.expression',
  SpelExpressionParser: 'org.springframework.expression.spel.standard',
  ExpressionFactory: 'javax.el',
  Velocity: 'org.apache.velocity.app',
  VelocityEngine: 'org.apache.velocity.app',
  Ognl: 'ognl',
  OgnlUtil: 'com.opensymphony.xwork2.ognl',
  OgnlValueStack: 'com.opensymphony.xwork2.ognl',
  OgnlReflectionProvider: 'com.opensymphony.xwork2.ognl',
  ReflectionProvider: 'com.opensymphony.xwork2.util.reflection',
  OgnlTextParser: 'com.opensymphony.xwork2.util',
  TextParser: 'com.opensymphony.xwork2.util',
  ValueStack: 'com.opensymphony.xwork2.util',
  DefaultExecutor: 'org.apache.commons.exec',
  NoopHostnameVerifier: 'org.apache.http.conn.ssl',
  ObjectMapper: 'com.fasterxml.jackson.databind',
  JsonMapper: 'com.fasterxml.jackson.databind.json',
};

/**
 * OGNL evaluators reached through a receiver the snippet never declares (`ognlUtil.getValue(…)`
 * with no field in sight): the receiver's name decides, failing closed. A receiver declared with
 * another type resolves to that type instead.
 */
const UNDECLARED_OGNL: ReadonlyArray<{ receiver: RegExp; methods: ReadonlySet<string>; type: string }> = [
  {
    receiver: /ognl/i,
    methods: new Set(['getValue', 'setValue', 'findValue', 'compile']),
    type: 'com.opensymphony.xwork2.ognl.OgnlUtil',
  },
  {
    receiver: /valuestack|^stack$/i,
    methods: new Set(['findValue', 'findString', 'setValue', 'setParameter']),
    type: 'com.opensymphony.xwork2.util.ValueStack',
  },
];

/**
 * Jackson mappers of a snippet that turns on polymorphic typing by class name: default typing
 * (`enableDefaultTyping`, `activateDefaultTyping`, `setDefaultTyping`) on any mapper, or a
 * `@JsonTypeInfo(use = Id.CLASS | Id.MINIMAL_CLASS)` on any of its types. Their reads are named
 * `…ObjectMapper(polymorphic)#readValue`: the payload names the classes it creates. Any mapper of
 * the snippet counts (a mapper field configured in another method, a second mapper: fail closed).
 */
const POLYMORPHIC = '(polymorphic)#';
const JACKSON_MAPPER = /^com\.fasterxml\.jackson\.databind\.(?:json\.JsonMapper|ObjectMapper)#/;
const DEFAULT_TYPING = new Set([
  'enableDefaultTyping',
  'enableDefaultTypingAsProperty',
  'activateDefaultTyping',
  'activateDefaultTypingAsProperty',
  'setDefaultTyping',
]);
const TYPE_INFO_NAME = /^@\s*(?:[\w$]+\s*\.\s*)*JsonTypeInfo\s*\(/;
const CLASS_ID = /\buse\s*=\s*(?:[\w$]+\s*\.\s*)*Id\s*\.\s*(?:MINIMAL_)?CLASS\b/;

/** Syntax facts of this analyzer (not identifiers: no snippet text can spell them). */
export const JAXRS_ANY_MEDIA = 'jaxrs:entity-any-media-type';
export const RMI_OBJECT_PARAMETER = 'rmi:remote-object-parameter';
/** JAX-RS request-method annotations (written without arguments; Retrofit's `@POST("x")` has one). */
const JAXRS_METHODS = /^@\s*(?:(?:javax|jakarta)\s*\.\s*ws\s*\.\s*rs\s*\.\s*)?(?:POST|PUT|PATCH|DELETE)$/;
/** Parameter annotations that bind a parameter from something other than the request entity. */
const JAXRS_NOT_ENTITY =
  /^@\s*(?:[\w$]+\s*\.\s*)*(?:PathParam|QueryParam|FormParam|HeaderParam|CookieParam|MatrixParam|BeanParam|Context|Suspended)\b/;
const CONSUMES = /^@\s*(?:[\w$]+\s*\.\s*)*Consumes\s*\(/;
/** Pieces of a `@Consumes(…)` value: a string literal or a (qualified) name. */
const MEDIA_TOKEN = /"(?:[^"\\\n]|\\.)*"|[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*/g;
/** Parameter types an RMI server reads without building an object the caller chooses. */
const RMI_PLAIN_TYPES = new Set(
  'boolean byte char short int long float double String Boolean Byte Character Short Integer Long Float Double'.split(
    ' ',
  ),
);

const PRIMITIVES = new Set(['var', 'int', 'long', 'short', 'byte', 'char', 'boolean', 'float', 'double', 'void']);
const IMPORT = /import\s+(static\s+)?([\w.\s]+?)(\s*\.\s*\*)?\s*;/y;
const TYPE_NAME = /(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/;

/** The declared name of a declaration, read from its text: the identifier before the first top-level `=`, `;` or `:`. */
function declaredName(src: string, start: number): string | null {
  let depth = 0;
  let last: string | null = null;
  const word = /[A-Za-z_$][\w$]*/y;
  for (let i = start; i < src.length && i < start + 400; i++) {
    const ch = src[i];
    if (ch === '<' || ch === '(') depth++;
    else if (ch === '>' || ch === ')') depth--;
    else if (depth <= 0 && (ch === '=' || ch === ';' || ch === ':' || ch === ','))
      return src[i + 1] === '=' ? null : last;
    else if (/[A-Za-z_$]/.test(ch)) {
      word.lastIndex = i;
      const m = word.exec(src);
      if (m) {
        if (depth <= 0) last = m[0];
        i += m[0].length - 1;
      }
    }
  }
  return null;
}

class JavaAnalysis extends AnalysisBase implements ExprOps {
  readonly identifierTypes = ['identifier'];
  readonly statementTypes = STATEMENTS;
  private readonly bound = new Set<number>();
  private readonly imports = new Map<string, string>();
  private readonly staticImports = new Map<string, string>();
  private readonly starPackages: string[] = [];
  private readonly localTypes = new Set<string>();
  /** Session 16: a local class's superclass (`class Loose extends ObjectInputStream`): its instances are that type too. */
  private readonly localSupers = new Map<string, string>();

  run(wanted: WantedNames): Fact[] {
    const v = this.view;
    const src = v.source;
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
      if (CALL_TYPES.includes(t)) calls.push(n);
      else if (t === 'import_declaration') this.readImport(n);
      else if (TYPE_DECLS.includes(t)) {
        const m = TYPE_NAME.exec(src.slice(n.startIndex, n.startIndex + 400));
        if (m) this.localTypes.add(m[1]);
        const sup = t === 'class_declaration' ? v.field(n, 'superclass') : null;
        if (m && sup) this.localSupers.set(m[1], v.text(sup).replace(/^extends\s+/, ''));
      } else if (
        FUNCTION_TYPES.includes(t) ||
        t === 'catch_formal_parameter' ||
        t === 'resource' ||
        t === 'enhanced_for_statement'
      ) {
        this.pendScope(this.scopeOf(n), n);
      } else if (t === 'assignment_expression') {
        // `p = new ProcessBuilder(…)` re-binds a declared local (`Process p;`): both values are kept.
        const left = v.field(n, 'left');
        if (left && v.type(left) === 'identifier') this.pendName(v.text(left), n);
      } else {
        const name = declaredName(src, n.startIndex);
        if (name) this.pendName(name, n);
      }
    });
    const words = patternWords(wanted.callPatterns);
    const shared = sharedStarts(calls);
    this.polymorphic = this.polymorphicJackson();
    for (const c of calls) if (this.relevant(c, words)) this.callFact(c, shared.has(c.startIndex));
    this.syntaxFacts(wanted);
    if (wanted.syntax.has(JAXRS_ANY_MEDIA)) this.jaxrsFacts();
    if (wanted.syntax.has(RMI_OBJECT_PARAMETER)) this.rmiFacts();
    if (src.includes('::')) this.methodReferences();
    return this.facts;
  }

  /**
   * Session 16 (red team): a method reference (`Runtime.getRuntime()::exec`,
   * `ObjectInputStream::readObject`) is the method handed over as a value; whoever holds it may
   * call it with anything, so it is a reference fact (the critical call rows without their
   * argument conditions), as a lambda's body would be a call.
   */
  private methodReferences(): void {
    const v = this.view;
    for (const r of v.ofType(v.root, ['method_reference'])) {
      const parts = v.named(r);
      const recv = parts[0];
      const method = parts.at(-1);
      if (!recv || !method || parts.length < 2 || v.type(method) !== 'identifier') continue;
      const name = v.text(method);
      const base = this.evaluate(recv, this.scopeOf(r));
      const names = [...membersOf(base, [name]), ...base.filter(isRef).map((b) => `${b}#${name}`)].filter(
        (x) => !x.startsWith('?'),
      );
      if (names.length > 0) this.facts.push({ kind: 'reference', line: v.line(r), names });
    }
  }

  /** The snippet turns on Jackson polymorphic typing by class name (POLYMORPHIC), read from the tree (not comments). */
  private polymorphic = false;
  private polymorphicJackson(): boolean {
    const v = this.view;
    const src = v.source;
    if (src.includes('DefaultTyping')) {
      for (const c of v.ofType(v.root, ['method_invocation'])) {
        const name = v.field(c, 'name');
        if (name && DEFAULT_TYPING.has(v.text(name))) return true;
      }
    }
    if (src.includes('JsonTypeInfo')) {
      for (const a of v.ofType(v.root, ['annotation'])) {
        const text = v.text(a).slice(0, 600);
        if (TYPE_INFO_NAME.test(text) && CLASS_ID.test(text)) return true;
      }
    }
    return false;
  }

  /** The annotations of a declaration (its `modifiers` child). */
  private annotationsOf(decl: Node): Node[] {
    const v = this.view;
    const mods = v.named(decl).find((c) => v.type(c) === 'modifiers');
    return mods ? v.named(mods).filter((c) => v.type(c) === 'annotation' || v.type(c) === 'marker_annotation') : [];
  }

  /**
   * A JAX-RS resource method that takes a request entity (a parameter no `@…Param`/`@Context`
   * binds) under any media type: no `@Consumes` on the method or its class, or one that admits a
   * wildcard, Java serialization, or a name the snippet does not show. RESTEasy picks the
   * entity's reader by the Content-Type the caller sends, and its providers include Java
   * serialization (`application/x-java-serialized-object`): the caller's bytes are deserialized.
   * Reported on the `@Consumes` line, or on the request-method annotation when there is none.
   */
  private jaxrsFacts(): void {
    const v = this.view;
    const src = v.source;
    if (!/@\s*(?:[\w$]+\s*\.\s*)*(?:POST|PUT|PATCH|DELETE)\b/.test(src)) return;
    const imported = /\b(?:javax|jakarta)\s*\.\s*ws\s*\.\s*rs\b/.test(src);
    for (const m of v.ofType(v.root, ['method_declaration'])) {
      const notes = this.annotationsOf(m);
      const verb = notes.find(
        (a) => v.type(a) === 'marker_annotation' && JAXRS_METHODS.test(v.text(a).replace(/\s+/g, '')),
      );
      if (!verb) continue;
      const cls = v.ancestor(m, new Set(['class_declaration', 'interface_declaration']), 4);
      const classNotes = cls ? this.annotationsOf(cls) : [];
      const pathed = [...notes, ...classNotes].some((a) => /^@\s*(?:[\w$]+\s*\.\s*)*Path\b/.test(v.text(a)));
      if (!imported && !pathed) continue;
      const params = v.field(m, 'parameters');
      const entity = (params ? v.named(params) : []).some(
        (p) =>
          (v.type(p) === 'formal_parameter' || v.type(p) === 'spread_parameter') &&
          !this.annotationsOf(p).some((a) => JAXRS_NOT_ENTITY.test(v.text(a))),
      );
      if (!entity) continue;
      const consumes = notes.find((a) => CONSUMES.test(v.text(a))) ?? classNotes.find((a) => CONSUMES.test(v.text(a)));
      if (consumes && !acceptsAnyMedia(v.text(consumes))) continue;
      this.fact({
        kind: 'syntax',
        line: v.line(consumes ?? verb),
        name: JAXRS_ANY_MEDIA,
        detail: consumes ? v.text(consumes).slice(0, 80) : `${v.text(verb)} without @Consumes`,
      });
    }
  }

  /**
   * An RMI remote interface (`extends Remote`) whose method takes a parameter of an object type
   * (not a primitive, its box or String, or arrays of them): the server deserializes whatever
   * object the caller sends in its place (JEP 290 filters only what it is configured for).
   * String is read as plain data since JDK 8u242; older JDKs read it as an object too.
   */
  private rmiFacts(): void {
    const v = this.view;
    if (!v.source.includes('Remote')) return;
    for (const i of v.ofType(v.root, ['interface_declaration'])) {
      const ext = v.named(i).find((c) => v.type(c) === 'extends_interfaces');
      if (!ext || !/(?:^|[^\w$])Remote\b/.test(v.text(ext).replace(/^extends/, ' '))) continue;
      const body = v.field(i, 'body');
      if (!body) continue;
      for (const m of v.named(body).filter((c) => v.type(c) === 'method_declaration')) {
        const params = v.field(m, 'parameters');
        for (const p of params ? v.named(params) : []) {
          const type = v.field(p, 'type') ?? v.named(p).find((c) => /type/.test(v.type(c)));
          if (!type) continue;
          const base = v
            .text(type)
            .replace(/\s+/g, '')
            .replace(/(?:\[\])+$/, '')
            .replace(/^java\.lang\./, '');
          if (RMI_PLAIN_TYPES.has(base)) continue;
          this.fact({ kind: 'syntax', line: v.line(p), name: RMI_OBJECT_PARAMETER, detail: v.text(p).slice(0, 80) });
          break;
        }
      }
    }
  }

  private readImport(n: Node): void {
    IMPORT.lastIndex = n.startIndex;
    const m = IMPORT.exec(this.view.source);
    if (!m) return;
    const path = m[2].replace(/\s+/g, '');
    if (m[3]) {
      if (!m[1]) this.starPackages.push(path);
      return;
    }
    const simple = path.slice(path.lastIndexOf('.') + 1);
    (m[1] ? this.staticImports : this.imports).set(simple, path);
    this.knownNames.add(simple);
  }

  private relevant(call: Node, words: PatternWords): boolean {
    const src = this.view.source;
    let start = call.startIndex;
    if (src.startsWith('new', start)) start = skipSpace(src, start + 3);
    const prefix = calleePrefix(src, start);
    if (!prefix) return true;
    if (prefix.some((w) => words.all.has(w)) || this.boundSomewhere(prefix[0]) || this.staticImports.has(prefix[0]))
      return true;
    // A chained receiver (`getParser().parseExpression(s).getValue()`): the text prefix stops at
    // the first call, so the method this call invokes is read from the tree.
    const own = this.view.field(call, 'name');
    const name = own ? this.view.text(own) : null;
    return name !== null && name !== prefix[prefix.length - 1] && words.all.has(name);
  }

  /** Fully-qualified candidates of a simple or qualified type name. */
  typeRefs(name: string, depth = 0): string[] {
    const base = name
      .replace(/<[\s\S]*>/g, '')
      .replace(/\[\s*\]/g, '')
      .replace(/\s+/g, '');
    if (base.includes('.')) {
      const [head, ...rest] = base.split('.');
      return head[0] === head[0].toUpperCase() ? this.typeRefs(head).map((h) => [h, ...rest].join('.')) : [base];
    }
    const imported = this.imports.get(base);
    if (imported) return [imported];
    if (this.localTypes.has(base)) {
      const sup = depth < 4 ? this.localSupers.get(base) : undefined;
      return sup ? [base, ...this.typeRefs(sup, depth + 1)] : [base];
    }
    if (JAVA_LANG.has(base)) return [`java.lang.${base}`];
    const out = this.starPackages.map((p) => `${p}.${base}`);
    const known = WELL_KNOWN[base];
    if (known && !out.includes(`${known}.${base}`)) out.push(`${known}.${base}`);
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
    if (value && this.safeYaml(value)) {
      // Exactly this instance: the declared type adds nothing the construction does not say.
      this.bind(scope, name, null, SAFE_YAML);
      return;
    }
    if (value && this.registeredKryo(value)) {
      this.bind(scope, name, null, REGISTERED_KRYO);
      return;
    }
    if (value && this.compiledFromConstant(value, scope)) {
      // Compiled from a constant: the declared type (ExpressionCompiler, Expression) would bring
      // back the evaluation names the constant rules out.
      this.bind(scope, name, null, CONSTANT_EXPRESSION);
      return;
    }
    const typeText = typeNode ? this.view.text(typeNode) : 'var';
    if (!PRIMITIVES.has(typeText)) for (const t of this.typeRefs(typeText)) this.bind(scope, name, null, `${t}#`);
    if (value) this.bind(scope, name, value);
    else if (PRIMITIVES.has(typeText)) this.bind(scope, name, null);
  }

  /**
   * `Kryo k = getSafeKryo();` where the snippet's only method of that name is declared to return a
   * Kryo and every `return x;` in it returns a variable it called `x.setRegistrationRequired(true)`
   * on: such a Kryo reads only registered classes. Not when the snippet ever sets it back to false.
   */
  private registeredKryo(value: Node): boolean {
    const v = this.view;
    if (v.type(value) !== 'method_invocation') return false;
    const object = v.field(value, 'object');
    if (object && v.type(object) !== 'this') return false;
    const called = v.field(value, 'name');
    if (!called || /setRegistrationRequired\s*\(\s*false/.test(v.source)) return false;
    const decls = v
      .ofType(v.root, ['method_declaration'])
      .filter((m) => v.text(v.field(m, 'name') ?? m) === v.text(called));
    if (decls.length !== 1) return false;
    const type = v.field(decls[0], 'type');
    const body = v.field(decls[0], 'body');
    if (!type || !body || !this.typeRefs(v.text(type)).includes('com.esotericsoftware.kryo.Kryo')) return false;
    const returns = v.ofType(body, ['return_statement']);
    const required = new Set(
      v
        .ofType(body, ['method_invocation'])
        .filter((c) => {
          const args = this.argNodes(v.field(c, 'arguments'));
          return (
            v.text(v.field(c, 'name') ?? c) === 'setRegistrationRequired' &&
            args.length === 1 &&
            v.text(args[0]) === 'true' &&
            v.field(c, 'object') !== null
          );
        })
        .map((c) => v.text(v.field(c, 'object')!)),
    );
    return (
      returns.length > 0 &&
      returns.every((r) => {
        const e = v.named(r)[0];
        return !!e && v.type(e) === 'identifier' && required.has(v.text(e));
      })
    );
  }

  /** `parser.parseExpression("…")`, `new ExpressionCompiler("…")`: compiled from a constant string. */
  private compiledFromConstant(node: Node, scope: Scope): boolean {
    const v = this.view;
    const t = v.type(node);
    let named: boolean;
    if (t === 'method_invocation') {
      const called = v.field(node, 'name');
      named = !!called && COMPILING_METHODS.has(v.text(called));
    } else if (t === 'object_creation_expression') {
      const type = v.field(node, 'type');
      named = !!type && this.typeRefs(v.text(type)).some((c) => COMPILING_CLASSES.has(c));
    } else return false;
    const first = named ? this.argNodes(v.field(node, 'arguments'))[0] : undefined;
    return !!first && this.constant(first, scope) !== null;
  }

  /**
   * `new Yaml(new SafeConstructor(…))` (SnakeYAML): its loads build only standard types. Read
   * from the construction itself (syntax: both class names must resolve to SnakeYAML's).
   */
  private safeYaml(node: Node): boolean {
    const v = this.view;
    if (v.type(node) !== 'object_creation_expression') return false;
    const type = v.field(node, 'type');
    if (!type || !this.typeRefs(v.text(type)).includes('org.yaml.snakeyaml.Yaml')) return false;
    const first = this.argNodes(v.field(node, 'arguments'))[0];
    if (!first || v.type(first) !== 'object_creation_expression') return false;
    const ctor = v.field(first, 'type');
    return !!ctor && this.typeRefs(v.text(ctor)).includes('org.yaml.snakeyaml.constructor.SafeConstructor');
  }

  /**
   * `private void readObject(ObjectInputStream in)`: the class's own deserialization hook. Java
   * calls it only while something else deserializes (that outer `readObject` is what is
   * reported); reading the next object of the same stream inside it starts nothing new. Not a
   * hook when the code calls a `readObject(…)` with an argument itself (it could hand the hook a
   * stream of its own).
   */
  private serializationHook(method: Node, params: Node): boolean {
    const v = this.view;
    if (v.type(method) !== 'method_declaration' || v.text(v.field(method, 'name') ?? method) !== 'readObject')
      return false;
    const ps = v.named(params);
    if (ps.length !== 1 || !/(?:^|\.)ObjectInputStream$/.test(v.text(v.field(ps[0], 'type') ?? ps[0]))) return false;
    this.directHookCall ??= v
      .ofType(v.root, ['method_invocation'])
      .some(
        (c) => v.text(v.field(c, 'name') ?? c) === 'readObject' && v.named(v.field(c, 'arguments') ?? c).length > 0,
      );
    return !this.directHookCall;
  }
  private directHookCall: boolean | undefined;

  protected bindNode(n: Node): void {
    if (this.bound.has(n.id)) return;
    this.bound.add(n.id);
    const v = this.view;
    const t = v.type(n);
    const scope = this.scopeOf(n);
    if (FUNCTION_TYPES.includes(t)) {
      const params = v.field(n, 'parameters');
      if (!params) return;
      if (v.type(params) === 'identifier') {
        this.bind(scope, v.text(params), null);
        return;
      }
      const hook = this.serializationHook(n, params);
      for (const p of v.named(params)) {
        const name = v.field(p, 'name');
        if (name && hook) this.bind(scope, v.text(name), null, HOOK_STREAM);
        else if (name) this.bindTyped(scope, v.text(name), v.field(p, 'type'), null);
        else if (v.type(p) === 'identifier') this.bind(scope, v.text(p), null);
      }
      return;
    }
    switch (t) {
      case 'local_variable_declaration':
      case 'field_declaration': {
        const target = t === 'field_declaration' ? this.scopes.root : scope;
        const type = v.field(n, 'type');
        for (const d of v.fields(n, 'declarator')) {
          const name = v.field(d, 'name');
          if (name) this.bindTyped(target, v.text(name), type, v.field(d, 'value'));
        }
        return;
      }
      case 'assignment_expression': {
        const left = v.field(n, 'left');
        const right = v.field(n, 'right');
        if (left && right && v.type(left) === 'identifier') this.bind(scope, v.text(left), right);
        return;
      }
      case 'catch_formal_parameter':
      case 'resource':
      case 'enhanced_for_statement': {
        const name = v.field(n, 'name');
        if (name) this.bindTyped(scope, v.text(name), v.field(n, 'type'), v.field(n, 'value'));
        return;
      }
    }
  }

  // ── resolution ────────────────────────────────────────────────────────────────────────

  protected freeName(name: string): Value[] {
    return /^[A-Z]/.test(name) ? this.typeRefs(name) : [name];
  }

  evaluate(node: Node, scope: Scope): Value[] {
    const v = this.view;
    switch (v.type(node)) {
      case 'identifier':
      case 'type_identifier':
        return this.lookupName(v.text(node), scope);
      case 'this':
        return ['this'];
      case 'field_access':
      case 'scoped_identifier':
      case 'scoped_type_identifier': {
        const parts = dottedParts(v.text(node));
        if (parts) return this.resolveDotted(parts, scope);
        const obj = v.field(node, 'object') ?? v.field(node, 'scope');
        const field = v.field(node, 'field') ?? v.field(node, 'name');
        if (!obj || !field) return [OPAQUE];
        return membersOf(this.evaluate(obj, scope), [v.text(field)]);
      }
      case 'method_invocation': {
        let args: Node[] | undefined;
        const first = () => (args ??= this.argNodes(v.field(node, 'arguments')))[0];
        if (this.compiledFromConstant(node, scope)) return [CONSTANT_EXPRESSION];
        return this.methodNames(node, scope).map((m) =>
          resultName(m, () => (first() ? this.constant(first()!, scope) : null)),
        );
      }
      case 'object_creation_expression': {
        if (this.safeYaml(node)) return [SAFE_YAML];
        if (this.compiledFromConstant(node, scope)) return [CONSTANT_EXPRESSION];
        const type = v.field(node, 'type');
        return type ? this.typeRefs(v.text(type)).map((t) => `${t}#`) : [OPAQUE];
      }
      case 'parenthesized_expression': {
        const inner = v.args(node)[0];
        return inner ? this.evaluate(inner, scope) : [OPAQUE];
      }
      case 'cast_expression': {
        const value = v.field(node, 'value');
        return value ? this.evaluate(value, scope) : [OPAQUE];
      }
      case 'string_literal':
      case 'binary_expression': {
        const c = this.constant(node, scope);
        if (c !== null) return [constValue(c)];
        return this.dynamicString(node, scope) ? [dynamicMarker(v.text(node))] : [OPAQUE];
      }
      case 'ternary_expression': {
        const a = v.field(node, 'consequence');
        const b = v.field(node, 'alternative');
        return [...(a ? this.evaluate(a, scope) : []), ...(b ? this.evaluate(b, scope) : [])];
      }
      default:
        return [OPAQUE];
    }
  }

  /** Values of `a.b.c`; `this.f` is the field f. */
  private resolveDotted(parts: readonly string[], scope: Scope): Value[] {
    const [head, rest] =
      parts[0] === 'this' && parts.length >= 2 ? [parts[1], parts.slice(2)] : [parts[0], parts.slice(1)];
    const base = this.lookupName(head, scope);
    return rest.length === 0 ? base : membersOf(base, rest);
  }

  /** Candidate names of the method a method_invocation calls. */
  private methodNames(node: Node, scope: Scope): Value[] {
    const v = this.view;
    const nameNode = v.field(node, 'name');
    if (!nameNode) return [];
    const name = v.text(nameNode);
    const obj = v.field(node, 'object');
    if (!obj) {
      const st = this.staticImports.get(name);
      return [st ?? `this.${name}`];
    }
    return membersOf(this.evaluate(obj, scope), [name]);
  }

  private argNodes(argsNode: Node | null): Node[] {
    return argsNode ? this.view.args(argsNode) : [];
  }

  protected readonly arms: StringArms = {
    binary: 'binary_expression',
    concat: '+',
    paren: 'parenthesized_expression',
    names: ['identifier'],
  };

  protected ownConstant(node: Node): string | null {
    const v = this.view;
    if (v.type(node) !== 'string_literal') return null;
    const text = v.text(node);
    if (text.startsWith('"""')) return text.slice(3, -3).replace(/^[ \t]*\n/, '');
    if (v.named(node).some((c) => v.type(c) === 'string_interpolation')) return null;
    return unescapeLiteral(text.slice(1, -1));
  }

  protected ownDynamicString(node: Node, scope: Scope): boolean {
    const v = this.view;
    if (v.type(node) !== 'method_invocation') return false;
    // String.format("... %s", x), "...".formatted(x), String.join / concat on a string.
    const names = this.methodNames(node, scope);
    const args = this.argNodes(v.field(node, 'arguments'));
    const obj = v.field(node, 'object');
    if (names.includes('java.lang.String.format') && args[0]) return this.stringy(args[0], scope);
    if (
      obj &&
      (names.some((n) => /\.(formatted|concat)$/.test(n)) || /\.(formatted|concat)$/.test(v.text(node).split('(')[0]))
    )
      return this.stringy(obj, scope);
    return false;
  }

  // ── facts ─────────────────────────────────────────────────────────────────────────────

  private callFact(node: Node, sharedStart: boolean): void {
    const v = this.view;
    const scope = this.scopeOf(node);
    // `a.b.m(` resolves from the text; `new T(`, generic calls and chains need the tree.
    const plain = sharedStart ? null : plainCallee(v.source, node.startIndex);
    let names: Value[];
    if (plain && plain.parts[0] !== 'new') {
      const method = plain.parts[plain.parts.length - 1];
      names =
        plain.parts.length === 1
          ? [this.staticImports.get(method) ?? `this.${method}`]
          : membersOf(this.resolveDotted(plain.parts.slice(0, -1), scope), [method]);
    } else {
      if (v.type(node) === 'object_creation_expression') {
        const type = v.field(node, 'type');
        names = type ? this.typeRefs(v.text(type)) : [];
      } else names = this.methodNames(node, scope);
    }
    if (plain && plain.parts.length === 2 && names.length === 1 && names[0] === plain.parts.join('.')) {
      // The receiver resolved to nothing but its own name: it is not declared in the snippet.
      const [receiver, method] = plain.parts;
      for (const o of UNDECLARED_OGNL)
        if (o.receiver.test(receiver) && o.methods.has(method)) names = [...names, `${o.type}#${method}`];
    }
    if (names.length === 0) return;
    if (this.polymorphic)
      names = [...names, ...names.filter((n) => JACKSON_MAPPER.test(n)).map((n) => n.replace('#', POLYMORPHIC))];
    const argsNode = v.field(node, 'arguments');
    // A chained call is reported on the line of its method name (`new ProcessBuilder()\n .command(cmd)`).
    const at = v.type(node) === 'method_invocation' ? (v.field(node, 'name') ?? node) : node;
    this.facts.push({
      kind: 'call',
      line: v.line(at),
      names,
      site: lazySite(() => makeCallSite({ node, scope, ops: this, args: this.argNodes(argsNode) })),
    });
  }

  private syntaxFacts(wanted: WantedNames): void {
    const v = this.view;
    for (const { index, name } of occurrences(v.source, wanted.syntax)) {
      const node = v.namedAt(index, index + name.length);
      if (node && /identifier$/.test(v.type(node))) this.fact({ kind: 'syntax', line: v.line(node), name });
    }
  }
}

/**
 * A `@Consumes(…)` that admits a media type the caller can pick a Java-serialization reader with:
 * a wildcard, `application/x-java-serialized-object`, or a name other than a MediaType constant
 * (its value is not shown: fail closed).
 */
function acceptsAnyMedia(annotation: string): boolean {
  const open = annotation.indexOf('(');
  const args = annotation.slice(open + 1, annotation.lastIndexOf(')'));
  let any = false;
  for (const m of args.matchAll(MEDIA_TOKEN)) {
    const t = m[0].replace(/\s+/g, '');
    if (t === 'value') continue;
    any = true;
    if (t.startsWith('"')) {
      if (t.includes('*') || /x-java-serialized-object/i.test(t)) return true;
      continue;
    }
    const constant = /^(?:(?:javax|jakarta)\.ws\.rs\.core\.)?MediaType\.([A-Z0-9_]+)$/.exec(t);
    if (!constant || constant[1].includes('WILDCARD')) return true;
  }
  return !any;
}

function skipSpace(src: string, i: number): number {
  let j = i;
  while (j < src.length && /\s/.test(src[j])) j++;
  return j;
}

export const javaAnalyzer: Analyzer = {
  analyze: (view: SyntaxView, wanted: WantedNames) => new JavaAnalysis(view).run(wanted),
};
