// Where a sink's input comes from: a light, text-level backward search from a sink's statement
// to the assignments that feed it, ending at a line that reads request or program input
// (`code = request.POST.get('code')` … `eval(code)` three lines later).
//
// It is an annotation and a narrowing, never a proof and never a reason to admit: it adds the
// source lines to a finding that is already reported (so the flow is shown with both lines),
// and it lets a few rows fire only for input-derived arguments (a template compiled from
// request data). Bounded: at most LOOKBACK lines above the sink, DEPTH assignment hops, and
// every regex is a fixed alternation or an escaped identifier (linear time).
import type { Family } from './languages.js';

/** Request or program input, per language family (fixed alternations, no nested quantifiers). */
export const INPUT_SOURCES: Readonly<Record<Family, RegExp>> = {
  javascript:
    /\breq\s*(?:\.\s*[A-Za-z_$]|\[)|\brequest\s*\.\s*(?:query|body|params|cookies|signedCookies|headers|url|originalUrl|path|files?|param|get)\b|\bprocess\.argv\b|\blocation\.(?:hash|search|href)\b|\bdocument\.(?:URL|cookie|location|referrer)\b|\bctx\.(?:query|request|params)\b|\bevent\s*(?:\.\s*(?:body|queryStringParameters|multiValueQueryStringParameters|pathParameters|headers|rawQueryString|rawPath|cookies)\b|\[\s*['"`])/,
  python:
    /\brequest\.(?:GET|POST|REQUEST|args|form|values|json|data|cookies|files|headers|get_json|query_params|body|stream|get_data|view_args)\b|\bsys\.argv\b|\binput\s*\(|\bos\.environ\b|\bos\.getenv\s*\(|\.parse_(?:known_)?args\s*\(/,
  php: /\$_(?:GET|POST|REQUEST|COOKIE|FILES|SERVER|ENV)\b|php:\/\/input|\$HTTP_[A-Z]+_VARS\b|\$argv\b|\bfilter_input(?:_array)?\s*\(|\$request\s*->\s*(?:input|get|query|post|all|only|file|cookie|header|json|getContent|request|cookies|files|headers|attributes)\b|\bInput::(?:get|all)\s*\(|\brequest\(\)\s*->/,
  ruby: /\bparams\b|\brequest\.(?:params|body|query_string|env|raw_post|headers)\b|\bcookies\b|\bARGV\b|\bgets\b|\bENV\s*\[/,
  java: /\.getParameter(?:Values|Map|Names)?\s*\(|\.getHeader(?:s)?\s*\(|\.getQueryString\s*\(|\.getCookies\s*\(|\.getInputStream\s*\(|\.getReader\s*\(|\.getPathInfo\s*\(|\.getRequestUR[IL]\s*\(|\.getParts?\s*\(|\bSystem\.in\b|@RequestParam\b|@PathVariable\b|@RequestBody\b|\bargs\s*\[|\bSystem\.getenv\s*\(/,
  go: /\.URL\.Query\(\)|\.URL\.(?:Path|RawQuery)\b|\.(?:Post)?FormValue\s*\(|\.(?:Post)?Form\b|\bos\.Args\b|\bos\.Getenv\s*\(|\.Body\b|\bflag\.(?:Arg|Args|String)\b|\bmux\.Vars\s*\(|\bc\.(?:Query|DefaultQuery|GetQuery|QueryArray|Param|Params|PostForm|DefaultPostForm|FormValue|QueryParam|FormFile|GetHeader)\s*\(/,
  bash: /\$\{?[1-9@*]|\bread\s+-?\w/,
  csharp:
    /\bRequest\s*\.\s*(?:Query|QueryString|Form|Params|Cookies|Headers|Body|RouteValues|Files|InputStream|ServerVariables)\b|\[\s*From(?:Query|Body|Form|Route|Header)\b|\bConsole\.ReadLine\s*\(|\bargs\s*\[|\bEnvironment\.GetEnvironmentVariable\s*\(|TextBox\w*\s*\.\s*Text\b/,
};

const LOOKBACK = 80;
const DEPTH = 3;
const MAX_STATEMENT_LINES = 15;
const MAX_NAMES = 24;
const IDENT = /[A-Za-z_$][\w$]*/g;

/** A line that opens a function (its body is where a sink's inputs are looked for). */
// (No two adjacent quantifiers can match the same text: linear on long runs of blanks.)
const FUNCTION_HEADER = /\b(?:function|def|func|fn|lambda|sub|proc)\b|=>|\bdo\s*(?:\|[^|\n]*\|\s*)?$/;
const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * The first line (0-based) of the search window above `sinkLine`: LOOKBACK lines, cut at the
 * nearest enclosing function header (a less indented line that opens a function), so one
 * handler's input does not count for the next handler's sink.
 */
function windowStart(lines: readonly string[], sinkLine: number): number {
  const floor = Math.max(0, sinkLine - 1 - LOOKBACK);
  let indent = indentOf(lines[sinkLine - 1] ?? '');
  for (let i = sinkLine - 2; i >= floor && indent > 0; i--) {
    const l = lines[i];
    if (l.trim() === '') continue;
    const d = indentOf(l);
    // `) {` / `):` closing a parameter list written over several lines: its header is above.
    if (d < indent && /^\s*\)/.test(l)) continue;
    if (d < indent) {
      if (FUNCTION_HEADER.test(l)) return i;
      indent = d;
    }
  }
  return floor;
}

/** The lines of the statement that starts on `line` (0-based): until its brackets balance. */
function statementText(lines: readonly string[], line: number): string {
  let depth = 0;
  let template = false;
  /** Session 15: inside a `"""` / `'''` string (Python, Java text blocks) running on: its delimiter. */
  let triple = '';
  let text = '';
  for (let i = line; i < lines.length && i < line + MAX_STATEMENT_LINES; i++) {
    const l = lines[i];
    text += `${l}\n`;
    for (let k = 0; k < l.length; k++) {
      const ch = l[k];
      if ((ch === '"' || ch === "'") && l.startsWith(ch.repeat(3), k) && (triple === '' || triple === ch)) {
        triple = triple === '' ? ch : '';
        k += 2;
      } else if (triple !== '') continue;
      else if (ch === '`')
        template = !template; // a template literal or raw string running on
      else if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth--;
    }
    if (depth <= 0 && !template && triple === '') break;
  }
  return text;
}

/** An identifier with an optional `$` (PHP), starting at an identifier boundary (linear). */
const WORD = /(?<![\w$.])\$?([A-Za-z_$][\w$]*)/g;
/** `name =`, `name :=`, `$name =`, `name +=` (not `==`, `=>`, `=~`): any assigned identifier (linear). */
const ASSIGNED = /(?<![\w$.])\$?([A-Za-z_$][\w$]*)\s*(?::=|\+=|=(?![=>~]))/g;

/** The first assignment to `name` on the line, or null (no regex built from the name: any length works). */
function assignmentOf(line: string, name: string): RegExpMatchArray | null {
  if (!line.includes(name)) return null;
  for (const m of line.matchAll(ASSIGNED)) if (m[1] === name) return m;
  return null;
}

/** `text` with each whole identifier `name` (and `$name`) replaced by `by`. */
function replaceWord(text: string, name: string, by: string): string {
  return text.replace(WORD, (w: string, id: string) => (id === name ? by : w));
}

function identifiers(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(IDENT)) {
    out.add(m[0].replace(/^\$/, ''));
    if (out.size >= MAX_NAMES) break;
  }
  return [...out];
}

/** Caller hops followed from a parameter to the calls of its function in the same file. */
const CALLER_HOPS = 8;
/** Calls of one function read per hop, at most. */
const MAX_CALLERS = 32;

/** One top-level search: the file's lines once, and each function parameter followed once. */
interface Walk {
  lines: readonly string[];
  /** `function\tparameter` pairs already followed to their callers. */
  followed: Set<string>;
  hops: number;
}
/**
 * `function name(params)`, `def name(params)`, `func name(params)`, `func (r *T) name(params)`
 * on one line (no nested quantifiers).
 */
const NAMED_HEADER = /\b(?:function|def|func)\s+(?:\([^()]*\)\s*)?(?:&\s*)?([A-Za-z_$][\w$]*)\s*\(([^()]*)\)/;

/** `name: value` (PHP 8, Ruby), `name=value` (Python), `...$x`, `*args`, `**kw`. */
const NAMED_OR_SPREAD = /^\s*(?:\$?[A-Za-z_]\w*\s*(?::(?!:)|=(?![=>]))|\.\.\.|\*)/;
/** Lines a function header's parameter list may run over. */
const HEADER_LINES = 12;

/** The parameter names of a named function header starting on `lines[at]` (`$` dropped), or null. */
function headerParams(lines: readonly string[], at: number): { name: string; params: string[] } | null {
  let line = lines[at] ?? '';
  // A parameter list over several lines: joined up to its `)` (at most HEADER_LINES lines).
  for (let i = at + 1; i < at + HEADER_LINES && i < lines.length && !NAMED_HEADER.test(line); i++) {
    if (!/\b(?:function|def|func)\b/.test(line)) break;
    line += ` ${lines[i]}`;
  }
  const m = NAMED_HEADER.exec(line);
  if (!m) return null;
  const params = m[2].split(',').map((p) => {
    const dollar = /\$([A-Za-z_]\w*)/.exec(p);
    if (dollar) return dollar[1];
    const ident = /[A-Za-z_][\w]*/.exec(p.replace(/^[\s*&.]+/, ''));
    return ident ? ident[0] : '';
  });
  return { name: m[1], params };
}

/**
 * The function a sink's statement sits in: named (its callers are followed), or anonymous (a
 * lambda, arrow function, closure or block: its parameters come from the call it is passed to).
 */
interface Header {
  /** 0-based line of the header. */
  line: number;
  name: string | null;
  params: string[];
  /** Parameters that are request input themselves (a route's view arguments, `@RequestParam`). */
  inputs: Set<string>;
  /** Anonymous: the header line's text before the function (`names.forEach(`, `app.get('/x', `). */
  prefix: string;
  /** Anonymous and registered as a route handler: its first parameter is the request. */
  route: boolean;
  /** Anonymous: the column where its parameter list ends on the header line (its body follows). */
  col?: number;
}

/** Words that open a statement with parentheses, never a method declaration. */
const CONTROL = new Set([
  'if',
  'for',
  'foreach',
  'while',
  'switch',
  'catch',
  'return',
  'new',
  'else',
  'do',
  'try',
  'synchronized',
  'throw',
  'super',
  'this',
  'await',
  'yield',
  'using',
  'lock',
  'elif',
  'with',
  'function',
  'def',
  'func',
]);
/** `name(params)` then only `throws …` and `{` (a Java or JavaScript class method's header). */
const METHOD_SHAPE =
  /(?<![\w$])([A-Za-z_$][\w$]*)\s*\(([^()]*)\)\s*(?:throws\s+[\w.]+(?:\s*,\s*[\w.]+)*\s*)?(?:\{\s*)?$/;
/** A Java route method's annotations (Spring, JAX-RS): every parameter is bound from the request. */
const JAVA_ROUTE = /@(?:Request|Get|Post|Put|Delete|Patch)Mapping\b|@(?:GET|POST|PUT|DELETE|PATCH|Path)\b/;
/** Java parameter annotations binding a parameter from the request. */
const JAVA_INPUT_PARAM =
  /@(?:RequestParam|PathVariable|RequestBody|RequestHeader|CookieValue|ModelAttribute|RequestPart|QueryParam|PathParam|FormParam|HeaderParam|CookieParam|MatrixParam|BeanParam)\b/;
/** A Python view's decorator (Flask, FastAPI, Sanic, aiohttp): its arguments come from the URL or the request. */
const PY_ROUTE = /^\s*@[\w.]*\.(?:route|get|post|put|delete|patch|api_route|websocket)\s*\(/;
/** A route registration (`app.get('/x', …)`, `router.post("/", …)`): the handler's first parameter is the request. */
const JS_ROUTE = /\.\s*(?:get|post|put|patch|delete|del|all|use|head|options|route)\s*\(\s*['"`/]/;

/** Top-level comma-separated pieces of a parameter list (`<…>` generics kept whole). */
function splitParams(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '<' || ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === '>' || ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** Java: `@A("x") final Map<K, V> name` -> name (the last identifier, annotations dropped). */
const javaParam = (p: string): string => {
  const m = /(?<![\w$])([A-Za-z_$][\w$]*)[\s[\]]*$/.exec(p.replace(/@[\w.]+(?:\([^()]*\))?/g, ' '));
  return m ? m[1] : '';
};

/** A C# action's attributes (ASP.NET Core / Web API): its parameters are bound from the request. */
const CS_ACTION = /\[\s*(?:Http(?:Get|Post|Put|Delete|Patch)|Route|AcceptVerbs)\b/;
/** C# parameter attributes binding a parameter from the request. */
const CS_INPUT_PARAM = /\[\s*(?:Microsoft\.AspNetCore\.Mvc\.)?From(?:Query|Body|Form|Route|Header)(?:Attribute)?\b/;
/** A C# controller class (a public instance method of it is an action). */
const CS_CONTROLLER =
  /\bclass\s+\w+[^{]*:\s*[^{]*\b(?:Controller|ControllerBase|ApiController|PageModel)\b|\[\s*ApiController\b/;
/** Lines above a C# method searched for its class's header. */
const CLASS_LOOKBACK = 400;

/** C#: `[FromQuery] ref string name = "x"` -> name (attributes and a default dropped). */
const csharpParam = (p: string): string => javaParam(p.replace(/\[[^\]]*\]/g, ' ').replace(/=[^]*$/, ''));

/** A C# method is an action: an action attribute above it, or public and not static in a controller class. */
function csharpAction(lines: readonly string[], at: number, head: string): boolean {
  for (let i = at - 1; i >= 0 && i >= at - 6 && /^\s*\[/.test(lines[i]); i--) if (CS_ACTION.test(lines[i])) return true;
  if (CS_ACTION.test(head)) return true;
  if (!/\bpublic\b/.test(head) || /\bstatic\b/.test(head)) return false;
  for (let i = at - 1; i >= 0 && i >= at - CLASS_LOOKBACK; i--) {
    if (!/\bclass\b|\[\s*ApiController\b/.test(lines[i])) continue;
    if (CS_CONTROLLER.test(lines[i])) return true;
    if (/\bclass\b/.test(lines[i])) return false;
  }
  return false;
}

/** A Java, C# or JavaScript class method header on `lines[at]` (no `function` keyword), or null. */
function methodHeader(lines: readonly string[], at: number, family: Family, text?: string): Header | null {
  if (family !== 'java' && family !== 'javascript' && family !== 'csharp') return null;
  const typed = family === 'java' || family === 'csharp';
  // `@RequestParam("n") String n`: an annotation's arguments dropped so the parameter list has no parentheses.
  let t = (text ?? lines[at] ?? '').trim().replace(/(@[\w.]+)\s*\([^()]*\)/g, '$1');
  if (family === 'csharp') {
    // `[HttpGet("x")] public T Run([FromQuery] string c)`: attributes dropped, kept aside for the action test;
    // `T Run(string n) => expr;` (an expression-bodied member) read up to its `=>`.
    t = t.replace(/\[[^\]]*\]/g, (a) => (CS_INPUT_PARAM.test(a) ? '@FromRequest' : ' ')).trim();
    const arrow = /\)\s*=>/.exec(t);
    if (arrow) t = t.slice(0, arrow.index + 1);
  }
  if (t === '' || t.startsWith('}') || t.startsWith('.') || t.startsWith('@')) return null;
  const m = METHOD_SHAPE.exec(t);
  if (!m || CONTROL.has(m[1])) return null;
  const before = t.slice(0, m.index);
  // A call or an assignment (`x = f(a) {`, `a.b(c)`) is not a declaration.
  if (/[=;.(]/.test(typed ? before.replace(/(?<![\w$])[\w$]+(?:\.[\w$]+)+/g, 'T') : before)) return null;
  if (typed && before.trim() === '') return null; // a Java or C# method has a return type or modifier
  const pieces = m[2].trim() === '' ? [] : splitParams(m[2]);
  const params = pieces.map((p) =>
    family === 'java'
      ? javaParam(p)
      : family === 'csharp'
        ? csharpParam(p.replace('@FromRequest', ' '))
        : (/[A-Za-z_$][\w$]*/.exec(p)?.[0] ?? ''),
  );
  const inputs = new Set<string>();
  let annotated = false;
  if (family === 'java')
    for (let i = at - 1; i >= 0 && i >= at - 6 && /^\s*@/.test(lines[i]); i--)
      if (JAVA_ROUTE.test(lines[i])) annotated = true;
  if (family === 'csharp' && pieces.length > 0) annotated = csharpAction(lines, at, lines[at] ?? '');
  pieces.forEach((p, i) => {
    if (family === 'java' && (annotated || JAVA_INPUT_PARAM.test(p))) inputs.add(params[i]);
    if (family === 'csharp' && (annotated || p.includes('@FromRequest'))) inputs.add(params[i]);
  });
  return { line: at, name: m[1], params, inputs, prefix: '', route: false };
}

/**
 * Anonymous functions on one line, with their parameters and the text before them: JS arrows
 * and function expressions, Java lambdas, Ruby blocks, PHP closures and arrow functions, Python
 * lambdas. The last one on the line is the innermost (for a sink on the same line).
 */
const ANON_FORMS: readonly RegExp[] = [
  /\(([^()]*)\)\s*(?:=>|->)/g,
  /(?<![\w$)\]])([A-Za-z_$][\w$]*)\s*(?:=>|->)/g,
  /\bfunction\s*(?:\*\s*)?(?:[A-Za-z_$][\w$]*\s*)?\(([^()]*)\)/g,
  /\bfn\s*\(([^()]*)\)\s*=>/g,
  /(?:\bdo|\{)\s*\|([^|]*)\|/g,
  /\blambda\b([^:()]{0,200}):/g,
  /\bfunc\s*\(([^()]*)\)/g,
];
/** The anonymous forms each language writes (indices into ANON_FORMS). */
const ANON_FORMS_OF: Readonly<Partial<Record<Family, readonly number[]>>> = {
  javascript: [0, 1, 2],
  java: [0, 1],
  php: [2, 3],
  ruby: [4],
  python: [5],
  go: [6],
  bash: [],
};
function anonHeaders(line: string, at: number, family: Family): Header[] {
  const out: Header[] = [];
  for (const k of ANON_FORMS_OF[family] ?? []) {
    for (const m of line.matchAll(ANON_FORMS[k])) {
      // A JavaScript arrow is `=>`, a Java lambda `->`.
      if (family === 'java' && m[0].includes('=>')) continue;
      if (family === 'javascript' && m[0].includes('->')) continue;
      const params = m[1]
        .split(',')
        .map((p) => /\$?([A-Za-z_][\w$]*)/.exec(p.replace(/^[\s*&.]+/, ''))?.[1] ?? '')
        .filter((p) => p !== '');
      if (params.length === 0) continue;
      const before = line.slice(0, m.index);
      // The call it is passed to: the text before it and the arguments after it on the line.
      const prefix = `${before} ${line.slice(m.index + m[0].length)}`;
      out.push({
        line: at,
        name: null,
        params,
        inputs: new Set(),
        prefix,
        route: JS_ROUTE.test(before),
        col: m.index + m[0].length,
      });
    }
  }
  return out;
}

/** The header on `lines[at]`: named (`function f(`, `def f(`, a method), else the line's last anonymous function. */
function headerAt(lines: readonly string[], at: number, family: Family): Header | null {
  const named = headerParams(lines, at);
  if (named && !/\bfunction\s*\(/.test(lines[at])) {
    const inputs = new Set<string>();
    // A Python view: arguments from the URL (a route decorator), or after Django's `request`.
    let routed = false;
    for (let i = at - 1; i >= 0 && i >= at - 6 && /^\s*@/.test(lines[i]); i--)
      if (PY_ROUTE.test(lines[i])) routed = true;
    // Django: `def view(request, …)`, or a class-based view's `def get(self, request, …)`.
    const django =
      named.params[0] === 'request' || (/^(?:self|cls)$/.test(named.params[0]) && named.params[1] === 'request');
    if (family === 'python' && (routed || django))
      for (const p of named.params) if (p !== 'self' && p !== 'cls' && p !== 'request') inputs.add(p);
    return { line: at, name: named.name, params: named.params, inputs, prefix: '', route: false };
  }
  if (family === 'ruby') {
    const r = rubyDef(lines[at] ?? '');
    if (r) return { line: at, name: r.name, params: r.params, inputs: new Set(), prefix: '', route: false };
  }
  return methodHeader(lines, at, family) ?? anonHeaders(lines[at] ?? '', at, family).at(-1) ?? null;
}

/** Ruby `def name a, b = 1, *rest` (parameters without parentheses; linear: the name and the list are separated by blanks). */
const RUBY_DEF = /^\s*def\s+(?:self\s*\.\s*)?([A-Za-z_]\w*[?!]?)[ \t]+([A-Za-z_*&][^#;\n]*)$/;

/** A Ruby method header without parentheses, or null. */
function rubyDef(line: string): { name: string; params: string[] } | null {
  const m = RUBY_DEF.exec(line);
  if (!m) return null;
  const params = splitParams(m[2]).map((p) => /[A-Za-z_]\w*/.exec(p.replace(/^[\s*&]+/, ''))?.[0] ?? '');
  return { name: m[1], params };
}

/** Words after which a Ruby name followed by a blank is not a call with arguments. */
const RUBY_NOT_ARGS =
  /^[ \t]+(?:[-+*/%<>=!&|?:.^~]|do\b|if\b|unless\b|and\b|or\b|then\b|rescue\b|while\b|until\b|end\b|$)/;

/**
 * Ruby calls without parentheses (`load_it params[:n], 1`): each call's line and its
 * arguments (the rest of the line, a trailing block or modifier dropped), read like a call's.
 */
function rubyBareCalls(lines: readonly string[], name: string): Array<{ line: number; args: string[] }> {
  const out: Array<{ line: number; args: string[] }> = [];
  for (let i = 0; i < lines.length && out.length < MAX_CALLERS; i++) {
    const l = lines[i];
    if (!l.includes(name)) continue;
    for (const m of l.matchAll(/[A-Za-z_]\w*[?!]?/g)) {
      if (m[0] !== name) continue;
      const before = l.slice(0, m.index);
      if (/\bdef\s+(?:self\s*\.\s*)?$/.test(before) || /(?:^|[^:]):$|@$/.test(before)) continue;
      const rest = l.slice(m.index + name.length);
      if (!/^[ \t]/.test(rest) || RUBY_NOT_ARGS.test(rest)) continue;
      // `run cmd do |x|`, `run cmd if ok`, `run cmd # note`: the arguments end there.
      const args = rest.replace(/\s+(?:do\b|if\b|unless\b|#).*$/, '').trim();
      if (args !== '') out.push({ line: i + 1, args: splitParams(args) });
      break;
    }
  }
  return out;
}

/**
 * The function the sink on `sinkLine` (1-based) sits in: the window's header line when the
 * window was cut at one, else the nearest less indented method header above (Java, class
 * methods), else an anonymous function on the sink's own line.
 */
function enclosingHeader(lines: readonly string[], family: Family, sinkLine: number, floor: number): Header | null {
  // A C# expression-bodied member (`Type Make(string n) => Type.GetType(n);`): the sink is on its header.
  if (family === 'csharp' && /\)\s*=>/.test(lines[sinkLine - 1] ?? '')) {
    const h = methodHeader(lines, sinkLine - 1, family);
    if (h) return h;
  }
  // A method written on one line (`void set(String n) { this.name = n; }`): its header is the line's text up to `{`.
  const own = lines[sinkLine - 1] ?? '';
  const brace = own.indexOf('{');
  if (brace > 0 && (family === 'java' || family === 'csharp' || family === 'javascript')) {
    const h = methodHeader(lines, sinkLine - 1, family, own.slice(0, brace + 1));
    if (h) return h;
  }
  if (floor < sinkLine - 1) {
    const h = headerAt(lines, floor, family);
    if (h) return h;
  }
  let indent = indentOf(lines[sinkLine - 1] ?? '');
  for (let i = sinkLine - 2; i >= Math.max(0, sinkLine - 1 - LOOKBACK) && indent > 0; i--) {
    const l = lines[i];
    if (l.trim() === '') continue;
    const d = indentOf(l);
    // A brace on its own line (C#, Allman style): the header is the line above it.
    if (d < indent && /^\s*\{\s*$/.test(l)) continue;
    if (d < indent) {
      const h = methodHeader(lines, i, family);
      if (h) return h;
      indent = d;
    }
  }
  return null;
}

/** The top-level comma-separated arguments of the call whose `(` is at `open` (null when unbalanced). */
function callArgs(source: string, open: number): string[] | null {
  const out: string[] = [];
  let depth = 0;
  let start = open + 1;
  let quote = '';
  for (let i = open; i < source.length && i < open + 4000; i++) {
    const ch = source[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      depth--;
      if (depth === 0) {
        out.push(source.slice(start, i));
        return out;
      }
    } else if (ch === ',' && depth === 1) {
      out.push(source.slice(start, i));
      start = i + 1;
    }
  }
  return null;
}

/** `name(` anywhere in the text (an identifier at its start, not inside another). */
const CALL_OPEN = /(?<![\w$])([A-Za-z_$][\w$]*)\s*\(/g;
let callCache: { source: string; index: Map<string, Array<{ open: number; line: number; dotted: boolean }>> } | null =
  null;

/** Every `name(` of the source by name, with its `(` offset and line: built once per source (linear). */
function callIndex(source: string): Map<string, Array<{ open: number; line: number; dotted: boolean }>> {
  if (callCache?.source === source) return callCache.index;
  const index = new Map<string, Array<{ open: number; line: number; dotted: boolean }>>();
  let line = 1;
  let counted = 0;
  for (const m of source.matchAll(CALL_OPEN)) {
    const open = m.index + m[0].length - 1;
    for (; counted < open; counted++) if (source.charCodeAt(counted) === 10) line++;
    const list = index.get(m[1]);
    const entry = { open, line, dotted: source[m.index - 1] === '.' };
    if (list) list.push(entry);
    else index.set(m[1], [entry]);
  }
  callCache = { source, index };
  return index;
}

/**
 * Simple inter-procedural flow within one file: the sink sits in a named function and reads its
 * parameter `param`; every call of that function in the file (by name, any receiver) whose
 * argument at that position carries input makes the parameter an input. Returns the input
 * lines found at those calls (and the call lines). Bounded by CALLER_HOPS and MAX_CALLERS; a
 * named argument or a spread is read by position only (an over-approximation: more flows,
 * never fewer).
 */
type NamedHeader = { name: string; params: string[] };

function callerSources(
  source: string,
  family: Family,
  header: NamedHeader,
  headerLine: number,
  param: string,
  walk: Walk,
): number[] {
  const at = header.params.indexOf(param);
  const key = `${header.name}\t${param}\t${headerLine}`;
  if (at < 0 || walk.hops <= 0 || walk.followed.has(key)) return [];
  walk.followed.add(key);
  // A constructor is called by its class's name (`H(x)` in Python, `new H(x)`): self is not passed.
  const ctor =
    header.name === '__init__' || header.name === 'constructor' ? classAbove(walk.lines, headerLine - 1) : null;
  const calls = (callIndex(source).get(ctor?.name ?? header.name) ?? []).filter((c) => c.line !== ctor?.line);
  const found: number[] = [];
  let seen = 0;
  // Ruby calls its methods without parentheses too (`load_it params[:n]`).
  const bare = family === 'ruby' ? rubyBareCalls(walk.lines, header.name) : [];
  const all = [
    ...calls.map((c) => ({ ...c, args: null as string[] | null })),
    ...bare.map((b) => ({ open: -1, line: b.line, dotted: false, args: b.args })),
  ];
  for (const { open, line, dotted, args: given } of all) {
    if (line === headerLine) continue; // the definition itself
    if (++seen > MAX_CALLERS) break;
    // A method called on a receiver, or a class constructed, does not pass Python's `self`/`cls` explicitly.
    const shift = (dotted || ctor) && /^(?:self|cls)$/.test(header.params[0]) ? 1 : 0;
    const args = given ?? callArgs(source, open);
    if (!args) continue;
    // A named argument or a spread moves arguments off their positions: every argument is read.
    // So does a count that differs from the parameters' (defaults, varargs, or a comma inside `<…>`).
    const moved = args.some((a) => NAMED_OR_SPREAD.test(a)) || args.length !== header.params.length - shift;
    const text = moved ? args.join(',') : args[at - shift];
    if (text === undefined) continue;
    if (INPUT_SOURCES[family].test(text)) {
      found.push(line);
      continue;
    }
    const names = identifiers(text);
    if (names.length === 0) continue;
    walk.hops--;
    const lines = inputSourcesFrom(source, family, line, names, walk);
    walk.hops++;
    if (lines.length > 0) found.push(line, ...lines);
  }
  for (const { line, text } of callbackUses(source, walk.lines, header.name)) {
    if (line === headerLine) continue;
    if (++seen > MAX_CALLERS) break;
    // `app.get('/x', handler)`: the handler's first parameter is the request.
    if (JS_ROUTE.test(text) || /\badd_url_rule\s*\(/.test(text)) {
      if (at === 0 || family === 'python') found.push(line);
      continue;
    }
    // `names.forEach(run)`, `map(run, names)`: the parameter takes the values the call passes.
    if (INPUT_SOURCES[family].test(text)) {
      found.push(line);
      continue;
    }
    const names = identifiers(text);
    if (names.length === 0) continue;
    walk.hops--;
    const lines = inputSourcesFrom(source, family, line, names, walk);
    walk.hops++;
    if (lines.length > 0) found.push(line, ...lines);
  }
  return found;
}

/** `class Name` (Python, JavaScript), optionally exported. */
const CLASS_HEADER = /^\s*(?:export\s+)?(?:default\s+)?class\s+([A-Za-z_$][\w$]*)/;

/** The class whose body holds the constructor on `lines[at]`: its name and 1-based line, or null. */
function classAbove(lines: readonly string[], at: number): { name: string; line: number } | null {
  const indent = indentOf(lines[at] ?? '');
  for (let i = at - 1; i >= 0 && i >= at - CLASS_LOOKBACK; i--) {
    const l = lines[i];
    if (l.trim() === '' || indentOf(l) >= indent) continue;
    const m = CLASS_HEADER.exec(l);
    return m ? { name: m[1], line: i + 1 } : null;
  }
  return null;
}

/**
 * A function passed by name as an argument (`arr.forEach(run)`, `app.get('/x', handler)`,
 * `map(load, names)`, `view_func=view`): each use's line and the line's text without the name.
 */
function callbackUses(source: string, lines: readonly string[], name: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let line = 1;
  let counted = 0;
  for (const m of source.matchAll(WORD)) {
    if (m[1] !== name || m[0] !== name) continue;
    for (; counted < m.index; counted++) if (source.charCodeAt(counted) === 10) line++;
    const after = source.slice(m.index + name.length, m.index + name.length + 64);
    if (/^\s*\(/.test(after)) continue; // a call, read by callerSources
    const before = source.slice(Math.max(0, m.index - 64), m.index).trimEnd();
    if (!/[(,=]$/.test(before) || /[=!<>]=$/.test(before)) continue; // not an argument
    const text = lines[line - 1] ?? '';
    out.push({ line, text: replaceWord(text, name, ' ') });
    if (out.length >= MAX_CALLERS) break;
  }
  return out;
}

/**
 * 1-based lines above `sinkLine` where request or program input enters a value that reaches
 * the names used on the sink's statement (through at most DEPTH assignments). `names` defaults
 * to the identifiers of the sink's statement. When the sink sits in a named function and a name
 * is one of its parameters, the calls of that function in the file are followed (callerSources;
 * their lines may lie below the sink).
 */
export function inputSources(
  source: string,
  family: Family,
  sinkLine: number,
  names?: readonly string[],
  fields: readonly string[] = [],
): number[] {
  return inputSourcesFrom(
    source,
    family,
    sinkLine,
    names,
    { lines: source.split('\n'), followed: new Set(), hops: CALLER_HOPS },
    Infinity,
    fields,
  );
}

function inputSourcesFrom(
  source: string,
  family: Family,
  sinkLine: number,
  names: readonly string[] | undefined,
  walk: Walk,
  scopeIndent = Infinity,
  fieldNames: readonly string[] = [],
): number[] {
  const re = INPUT_SOURCES[family];
  const lines = walk.lines;
  const found = new Set<number>();
  const seen = new Set<string>();
  const statement = names ? '' : statementText(lines, sinkLine - 1);
  let frontier = [...(names ?? identifiers(statement))];
  /** Fields the values read (`this.cmd`, `self.mod`, `$this->f`, `@x`): their writes anywhere in the file are followed. */
  const fields = new Set<string>(fieldNames);
  for (const f of statement.matchAll(FIELD_READ)) fields.add(f[1]);
  const floor = windowStart(lines, sinkLine);
  const header = walk.hops > 0 ? enclosingHeader(lines, family, sinkLine, floor) : null;
  // A lambda on the sink's own line (`names.forEach(n -> Class.forName(n))`).
  const inline = walk.hops > 0 ? anonHeaders(lines[sinkLine - 1] ?? '', sinkLine - 1, family) : [];
  /** Names read in the function but bound neither by it nor by its parameters: captured from outside. */
  const free: string[] = [];
  /**
   * Builder writes on the way to a name (`args.add("echo " + p)` before `new ProcessBuilder(args)`):
   * reported with the input they carry, since that is where input enters the value the sink reads.
   */
  const builders = new Map<string, readonly number[]>();
  const hit = (name: string, at: readonly number[]) => {
    if (at.length === 0) return;
    for (const l of at) found.add(l);
    for (const l of builders.get(name) ?? []) found.add(l);
  };
  const carry = (from: string, to: string, builderLine?: number) => {
    const path = builders.get(from) ?? [];
    if (!builders.has(to) && (path.length > 0 || builderLine !== undefined))
      builders.set(to, builderLine === undefined ? path : [...path, builderLine]);
  };
  for (let depth = 0; depth < DEPTH && frontier.length > 0; depth++) {
    const next: string[] = [];
    /** Names a builder write or a loop hands on at the same depth (they copy a value, no hop). */
    const same = (from: string, ids: readonly string[], builderLine?: number) => {
      for (const id of ids) {
        carry(from, id, builderLine);
        if (frontier.length < MAX_NAMES * 8) frontier.push(id);
      }
    };
    const onward = (from: string, ids: readonly string[]) => {
      for (const id of ids) carry(from, id);
      next.push(...ids);
    };
    for (const name of frontier) {
      if (seen.has(name) || name.length < 1) continue;
      seen.add(name);
      // `name =`, `name :=`, `$name =`, `name +=` (not `==`, `=>`, `=~`), as a whole identifier.
      let bound = false;
      for (let i = sinkLine - 2; i >= floor; i--) {
        const m = assignmentOf(lines[i], name);
        // A captured name is bound at the closure's level or outside it, never inside another function.
        if (depth === 0 && indentOf(lines[i]) > scopeIndent) continue;
        if (!m) {
          // `for (T name : xs)`, `foreach (var name in xs)`, `for name in xs:`: name takes xs's elements.
          const iterable = loopIterable(lines[i], name);
          if (iterable === null) continue;
          bound = true;
          if (re.test(iterable)) hit(name, [i + 1]);
          else same(name, identifiers(iterable));
          continue;
        }
        bound = true;
        const rhs = statementText(lines, i).slice((m.index ?? 0) + m[0].length);
        for (const f of rhs.matchAll(FIELD_READ)) fields.add(f[1]);
        if (re.test(rhs)) hit(name, [i + 1]);
        else {
          const via = walk.hops > 0 ? returnSources(source, family, i + 1, rhs, walk) : null;
          if (via && via.length > 0) hit(name, [i + 1, ...via]);
          // A value that is just the result of a helper of this file whose returns carry no input: no flow.
          else if (!(via && SINGLE_CALL.test(rhs))) onward(name, identifiers(rhs));
        }
      }
      // A value written into the name by a call or an index (`sb.append(x)`, `parts.push(x)`, `a[k] = x`, `s << x`).
      for (let i = sinkLine - 2; i >= floor; i--) {
        const m = mutationOf(lines[i], name);
        if (!m || (depth === 0 && indentOf(lines[i]) > scopeIndent)) continue;
        const rhs = statementText(lines, i).slice((m.index ?? 0) + m[0].length);
        if (re.test(rhs)) hit(name, [i + 1]);
        else same(name, identifiers(rhs), i + 1);
        for (const f of rhs.matchAll(FIELD_READ)) fields.add(f[1]);
      }
      const lambda = inline.find((h) => h.params.includes(name));
      if (lambda) hit(name, anonymousSources(source, family, lambda, name, walk));
      else if (header?.params.includes(name)) {
        if (header.inputs.has(name)) hit(name, [header.line + 1]);
        else if (header.name !== null)
          hit(name, callerSources(source, family, header as NamedHeader, header.line + 1, name, walk));
        else hit(name, anonymousSources(source, family, header, name, walk));
      } else if (!bound) free.push(name);
    }
    frontier = next.slice(0, MAX_NAMES * 4);
  }
  // A closure reads the variables of the code around it (`function($x) use ($t)`, a block, an
  // arrow function): a free name is looked for above the function's header, once.
  const nested = header !== null && (header.name === null || indentOf(lines[header.line]) > 0);
  if (header !== null && nested && header.line === floor && free.length > 0 && walk.hops > 0) {
    walk.hops--;
    const captured = free.slice(0, MAX_NAMES);
    for (const l of inputSourcesFrom(source, family, header.line + 1, captured, walk, indentOf(lines[header.line])))
      found.add(l);
    walk.hops++;
  }
  if (fields.size > 0 && walk.hops > 0) for (const l of fieldSources(source, family, [...fields], walk)) found.add(l);
  return [...found].sort((a, b) => a - b);
}

/** A field read: `this.x`, `self.x`, `$this->x`, `@x` (Ruby's instance variable). */
const FIELD_READ = /(?:(?<![\w$.])(?:this|self)\s*\.\s*|\$this\s*->\s*|(?<![\w@])@)([A-Za-z_]\w*)/g;
/** A field written: `this.x =`, `self.x +=`, `$this->x =`, `@x ||=`, `@x <<` (not `==`, `=>`, `=~`). */
const FIELD_WRITE =
  /(?:(?<![\w$.])(?:this|self)\s*\.\s*|\$this\s*->\s*|(?<![\w@])@)([A-Za-z_]\w*)\s*(?:\+=|\|\|=|<<|=(?![=>~]))/g;
/** Lines of a file searched for a field's writes, at most. */
const MAX_FIELD_LINES = 20_000;
/** Fields followed per search, at most. */
const MAX_FIELDS = 8;

/**
 * Input written into an object's field in another method of the file (`this.cmd =
 * req.getParameter("c")` in one method, `exec(this.cmd)` in another; Python `self.x`, PHP
 * `$this->x`, Ruby `@x`). Any object of the file's classes is assumed to be the one written (an
 * over-approximation: more flows, never fewer). Each field is followed once per search.
 */
function fieldSources(source: string, family: Family, fields: readonly string[], walk: Walk): number[] {
  const want = new Set(fields.filter((f) => !walk.followed.has(`field\t${f}`)).slice(0, MAX_FIELDS));
  if (want.size === 0) return [];
  for (const f of want) walk.followed.add(`field\t${f}`);
  const re = INPUT_SOURCES[family];
  const lines = walk.lines;
  const out: number[] = [];
  for (let i = 0; i < lines.length && i < MAX_FIELD_LINES; i++) {
    const l = lines[i];
    if (!l.includes('this') && !l.includes('self') && !l.includes('@')) continue;
    for (const m of l.matchAll(FIELD_WRITE)) {
      if (!want.has(m[1])) continue;
      const rhs = statementText(lines, i).slice(m.index + m[0].length);
      if (re.test(rhs)) {
        out.push(i + 1);
        continue;
      }
      const names = identifiers(rhs);
      if (names.length === 0 || walk.hops <= 0) continue;
      walk.hops--;
      const via = inputSourcesFrom(source, family, i + 1, names, walk);
      walk.hops++;
      if (via.length > 0) out.push(i + 1, ...via);
    }
  }
  return out;
}

/** A loop keyword at an identifier boundary; the separator of a for-each head (`:` but not `::`, ` in `, ` of `). */
const LOOP_KEYWORD = /(?<![\w$.])(?:foreach|for)\b/;
const LOOP_SEPARATOR = /\s(?:in|of)\s|(?<!:):(?!:)/;

/**
 * The iterable's text when `name` is a loop variable of a for-each on the line (`for (T name :
 * xs)`, `foreach (var name in xs)`, `for (const [k, name] of xs)`, `for name in xs:`), else
 * null. A counting loop (`for (int i = 0; …)`) has no separator and is not one.
 */
function loopIterable(line: string, name: string): string | null {
  if (!line.includes(name)) return null;
  const kw = LOOP_KEYWORD.exec(line);
  if (!kw) return null;
  let rest = line.slice(kw.index + kw[0].length);
  const open = /^\s*(?:await\s*)?\(/.exec(rest);
  if (open) {
    let depth = 1;
    let k = open[0].length;
    for (; k < rest.length && depth > 0; k++) {
      if (rest[k] === '(') depth++;
      else if (rest[k] === ')') depth--;
    }
    rest = rest.slice(open[0].length, depth === 0 ? k - 1 : rest.length);
  }
  const sep = LOOP_SEPARATOR.exec(rest);
  if (!sep || !identifiers(rest.slice(0, sep.index)).includes(name)) return null;
  return rest.slice(sep.index + sep[0].length).replace(/:\s*$/, '');
}

/** Methods that write their argument into the receiver (a list, a builder, a map, a stream). */
const MUTATED =
  /(?<![\w$.])\$?([A-Za-z_$][\w$]*)\s*(?:(?:\.|->)\s*(?:append|appendleft|extend|insert|push|unshift|add|addAll|put|putAll|update|setdefault|write|Append|AppendLine|AppendFormat|Add|AddRange|Insert|Write)\s*\(|<<|\[[^\]\n]{0,200}\]\s*=(?![=>~]))/g;

/** The first write of a value into `name` on the line (`name.append(`, `name[k] =`, `name <<`), or null. */
function mutationOf(line: string, name: string): RegExpMatchArray | null {
  if (!line.includes(name)) return null;
  for (const m of line.matchAll(MUTATED)) if (m[1] === name) return m;
  return null;
}

/**
 * Input reaching an anonymous function's parameter: a route handler's first parameter is the
 * request; otherwise the parameter takes the values of the call it is passed to (its receiver
 * and other arguments, an over-approximation): `params[:t].each do |t|`, `names.forEach(n -> …)`.
 */
function anonymousSources(source: string, family: Family, header: Header, name: string, walk: Walk): number[] {
  if (header.route) return header.params.indexOf(name) === 0 ? [header.line + 1] : [];
  const key = `anon\t${header.line}\t${name}`;
  if (walk.hops <= 0 || walk.followed.has(key)) return [];
  walk.followed.add(key);
  // The arguments written after a body that runs over several lines (`array_map(function ($f) {…},
  // $_GET['f'])`, `map(lambda m:\n …,\n names)`, `((m) => {…})(req.query.m)`) are the call's too.
  const after =
    header.col !== undefined && family !== 'ruby' ? trailingArgs(walk.lines, header.line, header.col) : null;
  const prefix = after ? `${header.prefix} ${after.text}` : header.prefix;
  if (INPUT_SOURCES[family].test(header.prefix)) return [header.line + 1];
  // Input written after the body: its line is named too (`request.args.getlist('m')` two lines down).
  if (after && INPUT_SOURCES[family].test(after.text)) return [header.line + 1, after.line + 1];
  const ids = identifiers(prefix).filter((n) => !header.params.includes(n));
  if (ids.length === 0) return [];
  walk.hops--;
  const lines = inputSourcesFrom(source, family, header.line + 1, ids, walk);
  walk.hops++;
  return lines.length > 0 ? [header.line + 1, ...lines] : [];
}

/** Characters read after an anonymous function's header for the arguments after its body, at most. */
const MAX_TRAILING_CHARS = 20_000;

/**
 * The arguments after an anonymous function's body (the body starts at `col` on line `at`): the
 * text after the first top-level comma up to the bracket that closes the call the function is
 * passed to, and the arguments of an immediate call (`(…)(x)`, Go's `func(…){…}(x)`). Quotes are
 * skipped; one pass over a bounded text (linear).
 */
function trailingArgs(lines: readonly string[], at: number, col: number): { text: string; line: number } {
  let text = (lines[at] ?? '').slice(col);
  for (let i = at + 1; i < lines.length && i <= at + MAX_BODY_LINES && text.length < MAX_TRAILING_CHARS; i++)
    text += `\n${lines[i]}`;
  text = text.slice(0, MAX_TRAILING_CHARS);
  let depth = 0;
  let quote = '';
  let from = -1;
  const invoked = (k: number): string => {
    const open = /^\s*\(/.exec(text.slice(k + 1, k + 65));
    return open ? (callArgs(text, k + 1 + open[0].length - 1) ?? []).join(',') : '';
  };
  /** The 0-based line of the first non-blank character at or after offset `k` of the text. */
  const lineOf = (k: number): number => {
    while (k < text.length && /\s/.test(text[k])) k++;
    let n = at;
    for (let j = 0; j < k; j++) if (text.charCodeAt(j) === 10) n++;
    return n;
  };
  for (let k = 0; k < text.length; k++) {
    const ch = text[k];
    if (quote) {
      if (ch === '\\') k++;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      depth--;
      if (depth < 0)
        return { text: `${from >= 0 ? text.slice(from, k) : ''} ${invoked(k)}`, line: lineOf(from >= 0 ? from : k) };
      if (depth === 0 && ch === '}' && from < 0) {
        const call = invoked(k);
        if (call !== '') return { text: call, line: lineOf(k) };
      }
    } else if (ch === ',' && depth === 0 && from < 0) from = k + 1;
  }
  return from >= 0 ? { text: text.slice(from), line: lineOf(from) } : { text: '', line: at };
}

/** Named functions of a source by name, with their header (built once per source). */
let definitionCache: { source: string; family: Family; index: Map<string, Header> } | null = null;
function definitions(source: string, family: Family, lines: readonly string[]): Map<string, Header> {
  if (definitionCache?.source === source && definitionCache.family === family) return definitionCache.index;
  const index = new Map<string, Header>();
  for (let i = 0; i < lines.length; i++) {
    if (!/\(/.test(lines[i]) && !(family === 'ruby' && /\bdef\b/.test(lines[i]))) continue;
    const h = /\b(?:function|def|func)\b/.test(lines[i]) ? headerAt(lines, i, family) : methodHeader(lines, i, family);
    if (h?.name && !index.has(h.name)) index.set(h.name, h);
  }
  definitionCache = { source, family, index };
  return index;
}

/** Lines of a function's body read for its `return`s, at most. */
const MAX_BODY_LINES = 200;

/**
 * Return-value flow: `rhs` (assigned on `line`) calls a function of the same file that returns
 * request input, or returns a parameter the call fills with input (`n = name(req)` with
 * `function name(r) { return r.query.m; }`). Returns the input lines found (the helper's return
 * or the lines feeding the argument), empty when none.
 */
function returnSources(source: string, family: Family, line: number, rhs: string, walk: Walk): number[] | null {
  const lines = walk.lines;
  const defs = definitions(source, family, lines);
  const re = INPUT_SOURCES[family];
  const out: number[] = [];
  let calls = 0;
  let known = true;
  for (const m of rhs.matchAll(CALL_OPEN)) {
    if (++calls > 4) break;
    const def = defs.get(m[1]);
    const key = `ret\t${m[1]}`;
    if (!def || def.line + 1 === line || walk.followed.has(key)) {
      known = false;
      continue;
    }
    walk.followed.add(key);
    const args = callArgs(rhs, m.index + m[0].length - 1) ?? [];
    const base = indentOf(lines[def.line]);
    for (let i = def.line + 1; i < lines.length && i <= def.line + MAX_BODY_LINES; i++) {
      const l = lines[i];
      if (l.trim() !== '' && indentOf(l) <= base) break;
      const r = /\breturn\b/.exec(l);
      if (!r) continue;
      const ret = statementText(lines, i).slice(r.index + r[0].length);
      if (re.test(ret)) {
        out.push(i + 1);
        continue;
      }
      // The parameters replaced by the call's arguments: `return r.query.m` with `req` is `req.query.m`.
      let bound = ret;
      def.params.forEach((p, k) => {
        if (p !== '' && args[k] !== undefined) bound = replaceWord(bound, p, `(${args[k]})`);
      });
      if (re.test(bound)) {
        out.push(line);
        continue;
      }
      walk.hops--;
      // Input assigned inside the helper, or fed to the arguments at the call.
      const inner = inputSourcesFrom(source, family, i + 1, identifiers(ret), walk);
      const outer =
        args.length > 0 && bound !== ret
          ? inputSourcesFrom(source, family, line, identifiers(args.join(',')), walk)
          : [];
      walk.hops++;
      out.push(...inner, ...outer);
    }
  }
  return out.length > 0 || (known && calls > 0) ? out : null;
}

/** `name(…)` or `obj.name(…)` alone, with an optional `;` (one call whose result is the whole value). */
const SINGLE_CALL = /^\s*(?:new\s+)?[A-Za-z_$][\w$]*(?:\s*(?:\.|->|::)\s*[A-Za-z_$][\w$]*)*\s*\([^()]*\)\s*(?:;\s*)?$/;

/**
 * The `n` source lines nearest above the sink, in line order, then up to `n` lines below it
 * (input passed by a later call of the sink's function, callerSources).
 */
export function nearestInputSources(source: string, family: Family, sinkLine: number, n: number): number[] {
  const all = inputSources(source, family, sinkLine);
  return [...all.filter((l) => l < sinkLine).slice(-n), ...all.filter((l) => l > sinkLine).slice(0, n)];
}

/** The argument text reads input itself, or names a value fed by input above the call. */
export function fromInput(source: string, family: Family, line: number, argText: string): boolean {
  if (INPUT_SOURCES[family].test(argText)) return true;
  // A function written in the argument (`array_map(function($s) {…}, $_GET)`) is code, not data:
  // its own parameters are bound inside it.
  const own = new Set(anonHeaders(argText, line - 1, family).flatMap((h) => h.params));
  const names = identifiers(argText).filter((n) => !own.has(n));
  const fields = [...argText.matchAll(FIELD_READ)].map((m) => m[1]);
  return names.length > 0 && inputSources(source, family, line, names, fields).length > 0;
}

/** Lines above a sink read for the assignment that builds one of its arguments. */
const PARAM_LOOKBACK = 40;

/** The nearest assignment above `sinkLine` (1-based, not above `stop`) to one of `names` built from one of `params`. */
function builtFromParams(
  lines: readonly string[],
  sinkLine: number,
  stop: number,
  names: string[],
  params: Set<string>,
): number[] {
  const out: number[] = [];
  for (const name of names) {
    if (params.has(name)) continue;
    for (let i = sinkLine - 2; i > stop && i >= sinkLine - 1 - PARAM_LOOKBACK; i--) {
      const m = assignmentOf(lines[i], name);
      if (!m) continue;
      const rhs = lines[i].slice((m.index ?? 0) + m[0].length);
      if (identifiers(rhs).some((n) => params.has(n))) out.push(i + 1);
      break;
    }
  }
  return out;
}

/**
 * Session 16: the parameter of the function around `line` that the argument text names, directly
 * or through local assignments above it in that function (whole statements, followed three deep);
 * null when none. A value the function's caller chooses (vm2's sandbox given a parameter).
 */
export function fromParameters(source: string, family: Family, line: number, argText: string): string | null {
  const lines = source.split('\n');
  const header = enclosingHeader(lines, family, line, windowStart(lines, line));
  const params = new Set(header?.params.filter((p) => p !== '') ?? []);
  if (!header || params.size === 0) return null;
  let names = identifiers(argText);
  const seen = new Set<string>();
  for (let depth = 0; depth < 4 && names.length > 0; depth++) {
    const hit = names.find((n) => params.has(n));
    if (hit !== undefined) return hit;
    const next: string[] = [];
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      for (let i = line - 2; i > header.line && i >= line - 1 - PARAM_LOOKBACK; i--) {
        const m = assignmentOf(lines[i], name);
        if (!m) continue;
        next.push(...identifiers(statementText(lines, i).slice((m.index ?? 0) + m[0].length)));
        break;
      }
    }
    names = next;
  }
  return null;
}

/**
 * Library input (session 15, CodeQL's second-order and unsafe-construction queries): a sink in a
 * function whose argument is a local value built from the function's own parameters
 * (`list = ["clone", remote]` … `Open3.capture3("git", *list)`), or a parameter filled at a call of
 * the function in the same file with such a value. Returns the lines that build it. An annotation
 * only, for a finding already reported; asked only when no request or program input was found.
 */
export function parameterSources(source: string, family: Family, sinkLine: number): number[] {
  const lines = source.split('\n');
  const header = enclosingHeader(lines, family, sinkLine, windowStart(lines, sinkLine));
  if (!header || header.params.length === 0) return [];
  const params = new Set(header.params.filter((p) => p !== ''));
  const used = identifiers(statementText(lines, sinkLine - 1));
  const out = builtFromParams(lines, sinkLine, header.line, used, params);
  // The sink uses a parameter itself: the calls of its function (one hop) that pass a value
  // their own function built from its parameters.
  const name = header.name;
  const filled = header.params.map((p, k) => (p !== '' && used.includes(p) ? k : -1)).filter((k) => k >= 0);
  if (out.length > 0 || !name || filled.length === 0) return out;
  let calls = 0;
  for (let i = 0; i < lines.length && calls < MAX_CALLERS; i++) {
    if (i === header.line) continue;
    const l = lines[i];
    for (let at = l.indexOf(name); at >= 0; at = l.indexOf(name, at + 1)) {
      if (/[\w$.]/.test(l[at - 1] ?? '') || /[\w$?!]/.test(l[at + name.length] ?? '')) continue;
      const rest = l.slice(at + name.length);
      const args = rest.startsWith('(')
        ? callArgs(l, at + name.length)
        : /^[ \t]/.test(rest)
          ? splitParams(rest.trim())
          : null;
      if (!args) continue;
      calls++;
      const caller = enclosingHeader(lines, family, i + 1, windowStart(lines, i + 1));
      if (!caller) continue;
      const callerParams = new Set(caller.params.filter((p) => p !== ''));
      const names = filled.flatMap((k) => (args[k] === undefined ? [] : identifiers(args[k])));
      out.push(...builtFromParams(lines, i + 1, caller.line, names, callerParams));
    }
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

/** `name(` or `name.member(…`: the head identifier of a call or method call (one pass; each chain link starts with `.`). */
const CALL_HEAD = /(?<![\w$.])([A-Za-z_$][\w$]*)\s*((?:\.\s*[A-Za-z_$][\w$]*\s*)*)\(/g;
/** What may stand before an assigned name on its line: nothing, or declaration words and types (`final Conn c =`). */
const DECLARATION_PREFIX = /^[\w$.<>,[\]\s]*$/;
const RECEIVER_FAMILIES: ReadonlySet<Family> = new Set(['python', 'javascript', 'java', 'go', 'ruby', 'csharp']);

/**
 * Session 16 (second wave): the lines that bind the callee or receiver of a sink's call when it is
 * a local name (`dynamic_system = getattr(dynamic_os, "system")` … `dynamic_system(x)`,
 * `connection = Client(…)` … `connection.recv()`), followed through the names those bindings
 * use, DEPTH deep, inside the sink's function window. Text-level, an annotation only (the finding
 * is already reported): the kind ('callee' / 'receiver') and the lines, or null.
 */
export function receiverBindings(
  source: string,
  family: Family,
  sinkLine: number,
): { kind: 'callee' | 'receiver'; lines: number[] } | null {
  if (!RECEIVER_FAMILIES.has(family)) return null;
  const lines = source.split('\n');
  const floor = windowStart(lines, sinkLine);
  let kind: 'callee' | 'receiver' = 'callee';
  const first: string[] = [];
  for (const m of statementText(lines, sinkLine - 1).matchAll(CALL_HEAD)) {
    if (first.length >= MAX_NAMES) break;
    if (first.includes(m[1])) continue;
    first.push(m[1]);
  }
  const out = new Set<number>();
  const seen = new Set<string>();
  let names = first;
  for (let depth = 0; depth < DEPTH && names.length > 0; depth++) {
    const next: string[] = [];
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      for (let i = sinkLine - 2; i >= floor; i--) {
        const m = assignmentOf(lines[i], name);
        if (!m || !DECLARATION_PREFIX.test(lines[i].slice(0, m.index ?? 0))) continue;
        if (depth === 0 && out.size === 0) {
          const head = statementText(lines, sinkLine - 1);
          kind = [...head.matchAll(CALL_HEAD)].some((h) => h[1] === name && h[2] !== '') ? 'receiver' : 'callee';
        }
        out.add(i + 1);
        // The names the binding reads (not words inside its string literals).
        const rhs = statementText(lines, i).slice((m.index ?? 0) + m[0].length);
        next.push(...identifiers(rhs.replace(/'[^'\n]*'|"[^"\n]*"/g, "''")));
        break;
      }
    }
    names = next.slice(0, MAX_NAMES);
  }
  return out.size === 0 ? null : { kind, lines: [...out].sort((a, b) => a - b) };
}
