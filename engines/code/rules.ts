// The rule table: one row per rule (id, languages, severity, type, description, matcher).
//
// Matchers run on the facts analyzers extract (see facts.ts), never on raw text, except the
// credential rows, which look at the text itself (a key in a comment is still a leaked key).
// Call names are fully qualified after alias resolution:
//   Python `os.system`, builtins `builtins.eval`; JavaScript `child_process.exec`, globals bare
//   (`eval`, `fetch`); Go `os/exec.Command`; Java `java.lang.Runtime#exec` (`T#m` = method m on
//   an instance of T, `new T(...)` = `T`); Ruby `Kernel.system` for receiverless calls, `::` as
//   `.`; PHP lower-case global function names; a call result is `f(...)`, with its first
//   constant string argument when it has one (`hashlib.new(md5)`, `crypto.createHash(md5)`).
// `*` in a name pattern matches any run of characters. Adding a rule is adding a row.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import type { Severity, IssueType } from './findings.js';
import type { Family } from './languages.js';
import {
  all,
  argValueMatches,
  argFalse,
  argTextMatches,
  constantArgIn,
  constantArgMatches,
  dynamicSql,
  evaluatesConstantCode,
  evaluatesUnsafeCode,
  kwargFalse,
  kwargNotTrue,
  kwargTrue,
  kwargPresent,
  nonConstantArg,
  not,
  passwordArg,
  passwordContext,
  stringArg,
  worldWritableMode,
  yamlLoaderUnsafe,
  kwargConstantIn,
  inputArg,
  argValuesAllIn,
  argValueStartsWith,
  dynamicMethodName,
  any,
  hasArg,
  rubyLocalHashMode,
  inertConstantPayload,
  inertDecodedPayload,
  sourceLacks,
  inertLiteralPayload,
  type Predicate,
} from './predicates.js';
import { inertJsonpickleText, JSONPICKLE_CONFIGURED } from './analyzers/payload-jsonpickle.js';
import { CLOSED_MODULES } from './analyzers/closed-modules.js';
import { PHP_DECODED_NAME } from './analyzers/php-decoded-names.js';
import { inertPickle, inertPickleLiteral } from './analyzers/payload-pickle.js';
import { inertPhpSerializedLiteral } from './analyzers/payload-php-serialize.js';
import { propertyLine, sandboxFromParameter, unseenFunctionName } from './predicates-recall.js';
import { SECRET_CHECKS, type SecretCheck } from './secrets.js';

export const RULES_VERSION = '1.0.0';

export type Matcher =
  | {
      on: 'call';
      names: readonly string[];
      where?: Predicate;
      hint?: RegExp;
      /** Matches only a call no other critical row matched, and none of `except` (a family's known-safe members). */
      fallback?: boolean;
      except?: readonly string[];
      /** Session 16: a call of a member a closed module lacks is not matched (analyzers/closed-modules.ts). */
      closed?: boolean;
    }
  | { on: 'attribute' | 'identifier' | 'property_write' | 'syntax'; names: readonly string[] }
  | { on: 'text'; secret: SecretCheck };

export interface RuleRow {
  id: string;
  languages: readonly Family[] | 'all';
  severity: Severity;
  type: IssueType;
  description: string;
  match: Matcher;
}

/** `hint`: a regex the source must match for the row to run at all (a necessary condition, for speed). */
/** Struts' OGNL reflection providers (a property name or expression is OGNL). */
const OGNL_PROVIDERS = [
  'com.opensymphony.xwork2.ognl.OgnlReflectionProvider',
  'com.opensymphony.xwork2.util.reflection.ReflectionProvider',
];
const call = (names: readonly string[], where?: Predicate, hint?: RegExp): Matcher => ({
  on: 'call',
  names,
  where,
  hint,
});
/**
 * Item 4 of issue 24: a call into a module or class whose members run code, processes or
 * deserializers, which no other row classifies and which is not one of the family's known-safe
 * members, fails closed (the scanner cannot tell it apart from the dangerous ones).
 */
const unclassified = (names: readonly string[], except: readonly string[], closed?: boolean): Matcher => ({
  on: 'call',
  names,
  fallback: true,
  except,
  ...(closed ? { closed } : {}),
});
/** Script objects whose code was judged where they were compiled. */
const COMPILED_SCRIPTS = ['vm.Script#', 'vm2.VMScript#'];
/** Oj modes that build no arbitrary object (every mode but :object). */
const OJ_SAFE_MODES = ['strict', 'null', 'compat', 'json', 'rails', 'custom', 'wab'];
/**
 * A Ruby path argument whose first character is a constant other than `|` (not an escape,
 * interpolation or space): one double-quoted literal with interpolations (`"dir/#{x}"`), or a
 * plain literal `+` a bare name, index or attribute chain (`'dir/' + params[:f]`). Anything else
 * (a ternary, a call with arguments, `"p" * 0 + x`) is left to the rule. Linear: no nested quantifier.
 */
const RB_CONSTANT_FIRST_CHAR =
  /^(?:"[^|#\\\s"][^"\\]*(?:\\.[^"\\]*)*"|(?:"[^|#\\\s"][^"\\#]*"|'[^|\\\s'][^'\\]*')\s*\+\s*[\w.@:[\]]+)$/;
/** Session 16 (red team): class and method names of the three families, as reflection names them. */
const JAVA_REFLECTED_FAMILY_CLASS =
  /^(?:java\.lang\.(?:Runtime|ProcessBuilder|ProcessImpl|UNIXProcess)|java\.io\.ObjectInputStream|java\.beans\.XMLDecoder|javax\.script\.ScriptEngineManager|groovy\.lang\.GroovyShell|com\.thoughtworks\.xstream\.XStream)$/;
const JAVA_REFLECTED_FAMILY_METHOD = /^(?:exec|readObject|readUnshared|loadLibrary|fromXML|getRuntime)$/;
const CS_REFLECTED_FAMILY_TYPE =
  /^(?:System\.Diagnostics\.Process|System\.Runtime\.Serialization\.Formatters\.(?:Binary\.BinaryFormatter|Soap\.SoapFormatter)|System\.Web\.UI\.(?:LosFormatter|ObjectStateFormatter)|System\.Runtime\.Serialization\.NetDataContractSerializer)(?:,.*)?$/;
const FAMILY_NOTE =
  'Call into a process, code-execution or deserialization family that the scanner cannot classify as safe (fail closed)';

const SQL_HINT = /\b(?:select|insert|update|delete|drop|create|alter|truncate|replace|union|where)\b/i;
const PASSWORD_HINT = /p(?:ass|w)|credential/i;
const attribute = (...names: string[]): Matcher => ({ on: 'attribute', names });
const identifier = (...names: string[]): Matcher => ({ on: 'identifier', names });
const propertyWrite = (...names: string[]): Matcher => ({ on: 'property_write', names });
const syntax = (...names: string[]): Matcher => ({ on: 'syntax', names });
const text = (secret: SecretCheck): Matcher => ({ on: 'text', secret });

/** `recv.m` and `T#m` forms of method names, for sinks called on any receiver. */
const methods = (...names: string[]): string[] => names.flatMap((n) => [`*.${n}`, `*#${n}`]);

const PY: readonly Family[] = ['python'];
const JS: readonly Family[] = ['javascript'];
const GO: readonly Family[] = ['go'];
const JAVA: readonly Family[] = ['java'];
const RB: readonly Family[] = ['ruby'];
const PHP: readonly Family[] = ['php'];
const SH: readonly Family[] = ['bash'];
const CS: readonly Family[] = ['csharp'];
/** C#: request input by its text or flow (inputArg), or a value bound to an action parameter (csharp.ts REQUEST_INPUT). */
const csInputArg = (i: number): Predicate => any(inputArg(i), argValueMatches(i, ['csharp.request-input']));

const row = (
  id: string,
  languages: RuleRow['languages'],
  severity: Severity,
  type: IssueType,
  description: string,
  match: Matcher,
): RuleRow => ({ id, languages, severity, type, description, match });

/** A Go `[]byte(…)` conversion (or bare text) of string literals only, joined by `+`. */
const GO_CONSTANT_BYTES = /^(?:\[\]byte\()?\s*"(?:[^"\\\n]|\\.)*"(?:\s*\+\s*"(?:[^"\\\n]|\\.)*")*\s*\)?$/;

export const RULES: readonly RuleRow[] = [
  // ── Python ──────────────────────────────────────────────────────────────────────────────
  row(
    'py.os-process',
    PY,
    'critical',
    'shell_execution',
    'Shell or process execution through os',
    call([
      'os.system',
      'os.popen',
      'os.popen2',
      'os.popen3',
      'os.popen4',
      'os.exec*',
      'os.spawn*',
      'os.posix_spawn',
      'os.posix_spawnp',
      'os.startfile',
      'posix.system',
      'posix.popen',
      'posix.exec*',
      'posix.spawn*',
      'nt.system',
    ]),
  ),
  row(
    'py.subprocess',
    PY,
    'critical',
    'shell_execution',
    'Process execution through subprocess',
    call([
      'subprocess.run',
      'subprocess.call',
      'subprocess.check_call',
      'subprocess.check_output',
      'subprocess.Popen',
      'subprocess.getoutput',
      'subprocess.getstatusoutput',
    ]),
  ),
  row('py.pty-spawn', PY, 'critical', 'shell_execution', 'Process execution through pty', call(['pty.spawn'])),
  row(
    'py.asyncio-subprocess',
    PY,
    'critical',
    'shell_execution',
    'Process execution through asyncio',
    call([
      'asyncio.create_subprocess_exec',
      'asyncio.create_subprocess_shell',
      'asyncio.subprocess.create_subprocess_exec',
      'asyncio.subprocess.create_subprocess_shell',
      '*.subprocess_exec',
      '*.subprocess_shell',
    ]),
  ),
  row(
    'py.legacy-shell',
    PY,
    'critical',
    'shell_execution',
    'Shell execution through a legacy module',
    call(['commands.getoutput', 'commands.getstatusoutput', 'commands.getstatus', 'platform.popen', 'popen2.*']),
  ),
  row(
    'py.eval',
    PY,
    'critical',
    'dynamic_code_execution',
    'Dynamic code execution',
    call(['builtins.eval', 'builtins.exec', 'builtins.compile', 'builtins.execfile'], evaluatesUnsafeCode(0)),
  ),
  row(
    'py.eval-constant',
    PY,
    'low',
    'dynamic_code_execution',
    'Evaluation of a constant code string (scanned: no critical finding inside)',
    call(['builtins.eval', 'builtins.exec', 'builtins.compile'], evaluatesConstantCode(0)),
  ),
  // The standard library's own interpreters: `code` runs source text like exec (`interact` runs
  // what stdin types), `runpy` runs a file or module chosen at run time.
  row(
    'py.code-interpreter',
    PY,
    'critical',
    'dynamic_code_execution',
    'Dynamic code execution through the code module',
    call(
      ['code.InteractiveInterpreter', 'code.InteractiveConsole']
        .flatMap((c) => [`${c}().runsource`, `${c}().runcode`, `${c}#runsource`, `${c}#runcode`])
        .concat(['code.InteractiveConsole().push', 'code.InteractiveConsole#push']),
      evaluatesUnsafeCode(0),
    ),
  ),
  row(
    'py.code-interact',
    PY,
    'critical',
    'dynamic_code_execution',
    'Interactive interpreter (runs whatever its input sends)',
    call(['code.interact', 'code.InteractiveConsole().interact', 'code.InteractiveConsole#interact']),
  ),
  // Session 14 (semgrep-rules' tests): sub-interpreters run source text like exec.
  row(
    'py.subinterpreter-run',
    PY,
    'critical',
    'dynamic_code_execution',
    'Dynamic code execution in a sub-interpreter',
    call(['_xxsubinterpreters.run_string', '_interpreters.run_string', '_interpreters.exec'], evaluatesUnsafeCode(1)),
  ),
  row(
    'py.subinterpreter-run-test',
    PY,
    'critical',
    'dynamic_code_execution',
    'Dynamic code execution in a sub-interpreter',
    call(
      ['_testcapi.run_in_subinterp', 'test.support.run_in_subinterp', '_testinternalcapi.run_in_subinterp_with_config'],
      evaluatesUnsafeCode(0),
    ),
  ),
  // codeop/code compile_command compiles source text for a later runcode/exec.
  row(
    'py.compile-command',
    PY,
    'critical',
    'dynamic_code_execution',
    'Compilation of computed source text (run next by runcode/exec)',
    call(
      ['code.compile_command', 'codeop.compile_command', 'codeop.Compile()', 'codeop.CommandCompiler()'],
      evaluatesUnsafeCode(0),
    ),
  ),
  // logging.config.listen applies configurations received on a socket; without `verify=` a
  // configuration names any callable to construct (code of the sender's choosing).
  row(
    'py.logging-listen',
    PY,
    'critical',
    'dynamic_code_execution',
    "logging.config.listen applies configurations received from the network (code of the sender's choosing) unless verify= checks them",
    call(['logging.config.listen'], not(any(hasArg(1), kwargPresent('verify')))),
  ),
  // A multiprocessing connection's recv() unpickles what the peer sent.
  row(
    'py.mp-connection-recv',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization: multiprocessing Connection.recv unpickles what the peer sent',
    call([
      'multiprocessing.connection.Client().recv',
      'multiprocessing.connection.Client#recv',
      'multiprocessing.connection.Listener().accept().recv',
      'multiprocessing.connection.Listener#accept().recv',
      'multiprocessing.connection.Connection#recv',
    ]),
  ),
  // Airflow's BashOperator runs its bash_command in a shell.
  row(
    'py.airflow-bash',
    PY,
    'critical',
    'shell_execution',
    'Shell execution: Airflow BashOperator runs its bash_command',
    call([
      'airflow.operators.bash.BashOperator',
      'airflow.operators.bash_operator.BashOperator',
      'airflow.providers.standard.operators.bash.BashOperator',
    ]),
  ),
  row(
    'py.runpy',
    PY,
    'critical',
    'dynamic_code_execution',
    'Runs a file or module chosen at run time (runpy)',
    call(['runpy.run_path', 'runpy.run_module'], nonConstantArg(0)),
  ),
  // Session 16 (red team): the debugger and profilers compile and run their statement string
  // (`pdb.run(c)`, `cProfile.run(c)`), as timeit does.
  row(
    'py.profiler-code',
    PY,
    'critical',
    'dynamic_code_execution',
    'Debugger or profiler given code built at run time (it compiles and runs the statement)',
    call(
      [
        ...['pdb', 'profile', 'cProfile'].flatMap((m) => [`${m}.run`, `${m}.runctx`]),
        'pdb.runeval',
        ...['pdb.Pdb', 'bdb.Bdb', 'profile.Profile', 'cProfile.Profile', 'trace.Trace'].flatMap((c) =>
          ['run', 'runctx', 'runeval'].flatMap((m) => [`${c}().${m}`, `${c}#${m}`]),
        ),
      ],
      evaluatesUnsafeCode(0),
    ),
  ),
  // `operator.methodcaller('system', c)(os)`: a method of one of the families called by name on an
  // object the call does not show (fail closed).
  row(
    'py.methodcaller-family',
    PY,
    'critical',
    'shell_execution',
    'Process, code-execution or deserialization method called by name (operator.methodcaller; fail closed)',
    call(
      ['operator.methodcaller'],
      constantArgMatches(
        0,
        /^(?:system|popen|eval|exec|exec[lv]p?e?|spawn[lv]p?e?|check_output|check_call|getoutput|getstatusoutput|Popen|loads|unsafe_load)$/,
      ),
    ),
  ),
  // A module loaded from a source or bytecode file named at run time runs that file's code.
  row(
    'py.module-from-path',
    PY,
    'critical',
    'dynamic_code_execution',
    'Module loaded from a file chosen at run time (its code runs)',
    call(
      [
        'importlib.machinery.SourceFileLoader',
        'importlib.machinery.SourcelessFileLoader',
        'importlib.util.spec_from_file_location',
        'imp.load_source',
        'imp.load_compiled',
        'imp.load_package',
      ],
      nonConstantArg(1),
    ),
  ),
  row(
    'py.code-family-unclassified',
    PY,
    'critical',
    'dynamic_code_execution',
    FAMILY_NOTE,
    // Not `code.*`: a snippet's unbound `code` is far more often a variable (`code.strip()`) than
    // the module, and an unbound name resolves to the module of that name.
    unclassified(['runpy.*'], []),
  ),
  row(
    'py.pickle',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (arbitrary code on load)',
    call([
      'pickle.load',
      'pickle.Unpickler',
      'cPickle.load',
      'cPickle.Unpickler',
      '_pickle.load',
      '_pickle.Unpickler',
      'dill.load',
      'cloudpickle.load',
      'pandas.read_pickle',
      'joblib.load',
      'sklearn.externals.joblib.load',
      'dill.Unpickler',
      'cloudpickle.Unpickler',
      'jsonpickle.unpickler.Unpickler',
    ]),
  ),
  // Session 16: a bytes literal whose opcodes import, call and ask nothing builds plain data
  // (analyzers/payload-pickle.ts); any other argument is judged as before.
  row(
    'py.pickle-loads',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (arbitrary code on load)',
    call(
      ['pickle.loads', 'cPickle.loads', '_pickle.loads', 'dill.loads', 'cloudpickle.loads'],
      all(
        not(inertLiteralPayload(0, 'pickle', inertPickleLiteral)),
        // Second wave: a base64 / hex decoding of a constant, decoded exactly (payload-decode.ts).
        not(inertDecodedPayload(0, 'pickle', inertPickle)),
      ),
    ),
  ),
  // Session 16: a constant text in which no jsonpickle tag can appear decodes to plain data
  // (analyzers/payload-jsonpickle.ts); anything else is judged as pickle is.
  row(
    'py.jsonpickle',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (arbitrary code on load)',
    call(
      ['jsonpickle.decode', 'jsonpickle.unpickler.decode'],
      not(inertConstantPayload(0, 'jsonpickle', inertJsonpickleText, JSONPICKLE_CONFIGURED, ['backend', 'context'])),
    ),
  ),
  // A class whose __reduce__ returns a code-running callable is a pickle gadget (a payload).
  row(
    'py.pickle-gadget',
    PY,
    'critical',
    'unsafe_deserialization',
    'Pickle gadget: __reduce__ returns a callable that runs code or a process on unpickling',
    syntax('pickle_gadget'),
  ),
  // Session 16 (semgrep's dangerous-annotations-usage): typing.get_type_hints evaluates string annotations.
  row(
    'py.annotation-computed',
    PY,
    'critical',
    'dynamic_code_execution',
    'Annotation written from a value that may be a string (typing.get_type_hints evaluates string annotations as code)',
    syntax('annotation_computed'),
  ),
  // The `sh` package: every attribute is a program (`sh.ls()`, `sh.bash('-c', c)`).
  row('py.sh-package', PY, 'critical', 'shell_execution', 'Process execution through the sh package', call(['sh.*'])),
  // Keras: safe_mode=False loads Lambda layers' pickled/marshalled code.
  row(
    'py.keras-unsafe-load',
    PY,
    'critical',
    'unsafe_deserialization',
    'Keras model loaded with safe_mode=False (runs code stored in the model)',
    call(
      ['keras.models.load_model', 'keras.saving.load_model', 'tensorflow.keras.models.load_model'],
      kwargFalse('safe_mode'),
    ),
  ),
  // Task runners whose run/local take a shell command line.
  row(
    'py.task-runner-shell',
    PY,
    'critical',
    'shell_execution',
    'Shell command run through a task runner or pexpect (fabric, invoke, pexpect)',
    call([
      'fabric.api.local',
      'fabric.api.run',
      'fabric.api.sudo',
      'fabric.operations.local',
      'fabric.operations.run',
      'fabric.operations.sudo',
      'invoke.run',
      'invoke.sudo',
      'pexpect.spawn',
      'pexpect.spawnu',
      'pexpect.run',
      'pexpect.runu',
      'pexpect.popen_spawn.PopenSpawn',
    ]),
  ),
  // timeit compiles and runs its statement (and setup) strings.
  row(
    'py.timeit-code',
    PY,
    'critical',
    'dynamic_code_execution',
    'timeit given code built at run time (it compiles and runs the statement)',
    call(['timeit.timeit', 'timeit.repeat', 'timeit.Timer'], evaluatesUnsafeCode(0)),
  ),
  // A Jinja2 template made from request input runs its expressions (server-side template injection).
  row(
    'py.template-input',
    PY,
    'critical',
    'dynamic_code_execution',
    'Template compiled from request or program input (server-side template injection)',
    call(
      ['jinja2.Template', 'jinja2.Environment().from_string', 'flask.render_template_string', 'mako.template.Template'],
      inputArg(0),
    ),
  ),
  // A native library loaded from a computed path runs its initialisers (like Java's System.load).
  row(
    'py.ctypes-load',
    PY,
    'critical',
    'dynamic_code_execution',
    'Native library loaded from a computed path (runs its code)',
    call(
      [
        'ctypes.CDLL',
        'ctypes.PyDLL',
        'ctypes.WinDLL',
        'ctypes.OleDLL',
        'ctypes.cdll.LoadLibrary',
        'ctypes.LibraryLoader',
      ],
      all(nonConstantArg(0), not(argTextMatches(0, /^(?:ctypes\.util\.)?find_library\(/))),
    ),
  ),
  row(
    'py.marshal',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization through marshal',
    call(['marshal.load', 'marshal.loads']),
  ),
  row(
    'py.shelve',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization through shelve (pickle-backed)',
    call(['shelve.open', 'shelve.Shelf', 'shelve.DbfilenameShelf']),
  ),
  row(
    'py.yaml-load',
    PY,
    'critical',
    'unsafe_deserialization',
    'yaml.load without a safe Loader',
    call(['yaml.load', 'yaml.load_all'], yamlLoaderUnsafe()),
  ),
  row(
    'py.ruamel-unsafe',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe ruamel.yaml loading',
    call(['ruamel.yaml.load', 'ruamel.yaml.load_all'], yamlLoaderUnsafe()),
  ),
  row(
    'py.ruamel-unsafe-typ',
    PY,
    'critical',
    'unsafe_deserialization',
    'ruamel.yaml with the unsafe loader',
    call(['ruamel.yaml.YAML', 'ruamel.yaml.main.YAML'], kwargConstantIn('typ', ['unsafe'])),
  ),
  row(
    'py.ruamel-unsafe-load',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe ruamel.yaml loading',
    call(['ruamel.yaml.unsafe_load', 'ruamel.yaml.unsafe_load_all']),
  ),
  row(
    'py.remote-exec',
    PY,
    'critical',
    'shell_execution',
    'Remote command execution over SSH',
    call(['paramiko.SSHClient().exec_command', 'paramiko.client.SSHClient().exec_command', ...methods('exec_command')]),
  ),
  row(
    'py.yaml-unsafe',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe YAML loading',
    call(['yaml.unsafe_load', 'yaml.unsafe_load_all']),
  ),
  // FullLoader constructed arbitrary Python objects before PyYAML 5.4 (the version is not known
  // here); the loader classes themselves, constructed directly, load whatever they are given.
  row(
    'py.yaml-full-load',
    PY,
    'critical',
    'unsafe_deserialization',
    'YAML full_load (arbitrary objects before PyYAML 5.4; the version is not known here)',
    call(['yaml.full_load', 'yaml.full_load_all']),
  ),
  row(
    'py.yaml-loader-class',
    PY,
    'critical',
    'unsafe_deserialization',
    'Unsafe YAML loader constructed directly',
    call([
      'yaml.Loader',
      'yaml.UnsafeLoader',
      'yaml.FullLoader',
      'yaml.loader.Loader',
      'yaml.loader.UnsafeLoader',
      'yaml.loader.FullLoader',
      'yaml.CLoader',
      'yaml.CUnsafeLoader',
      'yaml.CFullLoader',
    ]),
  ),
  row(
    'py.process-family-unclassified',
    PY,
    'critical',
    'shell_execution',
    FAMILY_NOTE,
    unclassified(
      ['subprocess.*', 'asyncio.subprocess.*', 'pty.*', 'popen2.*', 'commands.*'],
      [
        'subprocess.list2cmdline',
        'subprocess.CompletedProcess',
        'subprocess.CalledProcessError',
        'subprocess.TimeoutExpired',
        'subprocess.SubprocessError',
        'subprocess.STARTUPINFO',
        'asyncio.subprocess.Process',
        'pty.openpty',
        'pty.fork',
      ],
    ),
  ),
  row(
    'py.deserialization-family-unclassified',
    PY,
    'critical',
    'unsafe_deserialization',
    FAMILY_NOTE,
    unclassified(
      [
        'pickle.*',
        'cPickle.*',
        '_pickle.*',
        'dill.*',
        'cloudpickle.*',
        'jsonpickle.*',
        'shelve.*',
        'marshal.*',
        'joblib.*',
      ],
      [
        '*.dump',
        '*.dumps',
        '*.Pickler',
        '*.PickleError',
        '*.PicklingError',
        '*.UnpicklingError',
        '*.PickleBuffer',
        'jsonpickle.encode',
        'jsonpickle.dumps',
        'dill.settings',
        'dill.detect.*',
        'dill.source.*',
        'joblib.Parallel',
        'joblib.delayed',
        'joblib.Memory',
        'joblib.cpu_count',
        'joblib.hash',
        'joblib.parallel_backend',
        'joblib.parallel_config',
      ],
      true,
    ),
  ),
  // allow_pickle=True unpickles object arrays: arbitrary code on load, like pickle.load.
  row(
    'py.numpy-pickle',
    PY,
    'critical',
    'unsafe_deserialization',
    'numpy.load with allow_pickle=True',
    call(['numpy.load'], kwargTrue('allow_pickle')),
  ),
  // Unpickles (arbitrary code on load) unless weights_only=True; the default changed in torch 2.6
  // and the version is not known here: fail closed.
  row(
    'py.torch-load',
    PY,
    'critical',
    'unsafe_deserialization',
    'torch.load without weights_only=True (pickle)',
    call(['torch.load'], kwargNotTrue('weights_only')),
  ),
  row(
    'py.sandbox-attr',
    PY,
    'critical',
    'sandbox_escape',
    'Sandbox-escape attribute access',
    attribute('__subclasses__', '__globals__', '__builtins__', '__code__', '__mro__'),
  ),
  row('py.sandbox-name', PY, 'critical', 'sandbox_escape', 'Direct use of __builtins__', identifier('__builtins__')),
  row(
    'py.weak-password-hash',
    PY,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(
      ['hashlib.md5', 'hashlib.sha1', 'Crypto.Hash.MD5.new', 'Crypto.Hash.SHA1.new'],
      passwordContext(),
      PASSWORD_HINT,
    ),
  ),
  row(
    'py.weak-password-hash-new',
    PY,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(['hashlib.new'], all(constantArgIn(0, ['md5', 'sha1']), passwordContext()), PASSWORD_HINT),
  ),
  row(
    'py.weak-password-hash-update',
    PY,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) fed a password',
    call(
      ['hashlib.md5(*).update', 'hashlib.sha1(*).update', 'hashlib.new(md5).update', 'hashlib.new(sha1).update'],
      passwordArg(),
      PASSWORD_HINT,
    ),
  ),
  row(
    'py.dynamic-import',
    PY,
    'high',
    'dynamic_import',
    'Import of a module name computed at run time',
    call(['builtins.__import__', 'importlib.import_module', 'importlib.__import__'], nonConstantArg(0)),
  ),
  // A module the request names: the import runs that module's top-level code, any installed
  // module can be chosen, and `getattr(import_module(m), f)(a)` reaches os.system (session 12).
  row(
    'py.import-from-input',
    PY,
    'critical',
    'dynamic_code_execution',
    'Module chosen by request input (the import runs any installed module; unsafe reflection)',
    call(['builtins.__import__', 'importlib.import_module', 'importlib.__import__'], inputArg(0)),
  ),
  row(
    'py.dynamic-attr',
    PY,
    'high',
    'dynamic_call',
    'Attribute of a process/code module looked up by a computed name',
    call(['os.?', 'subprocess.?', 'builtins.?', 'pty.?', 'posix.?', 'pickle.?', 'marshal.?']),
  ),
  row(
    'py.sql',
    PY,
    'high',
    'sql_injection',
    'SQL statement built from run-time values passed to a query call',
    call(
      methods('execute', 'executemany', 'executescript', 'raw', 'mogrify').concat([
        'pandas.read_sql',
        'pandas.read_sql_query',
        'sqlalchemy.text',
      ]),
      dynamicSql([0]),
      SQL_HINT,
    ),
  ),
  row(
    'py.tls-verify-off',
    PY,
    'high',
    'insecure_tls',
    'TLS certificate verification disabled (verify=False)',
    call(
      [
        'requests.*',
        'httpx.*',
        '*.get',
        '*.post',
        '*.put',
        '*.patch',
        '*.delete',
        '*.request',
        '*.head',
        '*.options',
        '*.Session',
        '*.Client',
        '*.AsyncClient',
      ],
      kwargFalse('verify'),
      /\bverify\s*=\s*False\b/,
    ),
  ),
  row(
    'py.tls-unverified',
    PY,
    'high',
    'insecure_tls',
    'Unverified TLS context',
    call(['ssl._create_unverified_context', 'ssl._create_stdlib_context']),
  ),
  row(
    'py.mktemp',
    PY,
    'medium',
    'insecure_tempfile',
    'Race-prone temporary file name (mktemp)',
    call(['tempfile.mktemp', 'os.tempnam', 'os.tmpnam']),
  ),
  row(
    'py.file-delete',
    PY,
    'medium',
    'file_deletion',
    'File or directory deletion',
    call([
      'os.remove',
      'os.unlink',
      'os.rmdir',
      'os.removedirs',
      'shutil.rmtree',
      'pathlib.Path(*).unlink',
      'pathlib.Path(*).rmdir',
    ]),
  ),
  row(
    'py.chmod-world',
    PY,
    'medium',
    'insecure_permissions',
    'World-writable file mode',
    call(['os.chmod', 'os.fchmod', 'os.lchmod', 'os.mkdir', 'os.makedirs', 'os.open'], worldWritableMode(1)),
  ),
  row(
    'py.socket',
    PY,
    'low',
    'raw_socket',
    'Raw network socket',
    call(['socket.socket', 'socket.create_connection', 'socket.create_server', 'socket.socketpair', 'socket.fromfd']),
  ),
  row(
    'py.http',
    PY,
    'low',
    'outbound_http',
    'Outbound HTTP request',
    call([
      'requests.get',
      'requests.post',
      'requests.put',
      'requests.patch',
      'requests.delete',
      'requests.head',
      'requests.options',
      'requests.request',
      'requests.Session',
      'urllib.request.urlopen',
      'urllib.request.urlretrieve',
      'urllib.request.Request',
      'urllib2.urlopen',
      'http.client.HTTPConnection',
      'http.client.HTTPSConnection',
      'httpx.get',
      'httpx.post',
      'httpx.put',
      'httpx.delete',
      'httpx.request',
      'httpx.Client',
      'httpx.AsyncClient',
      'aiohttp.ClientSession',
      'aiohttp.request',
      'urllib3.PoolManager',
      'urllib3.request',
    ]),
  ),

  // ── JavaScript / TypeScript ─────────────────────────────────────────────────────────────
  row(
    'js.child-process',
    JS,
    'critical',
    'shell_execution',
    'Process execution through child_process',
    call(['child_process.*']),
  ),
  // A wrapper whose name says it is child_process (`childProcessAsPromised.exec(…)` from a helper
  // package the scanner never sees): its process methods are treated as child_process's (fail closed).
  row(
    'js.child-process-wrapper',
    JS,
    'critical',
    'shell_execution',
    'Process execution through a child_process wrapper',
    call(
      ['exec', 'execSync', 'execFile', 'execFileSync', 'spawn', 'spawnSync', 'fork'].flatMap((m) => [
        `*childProcess*.${m}`,
        `*ChildProcess*.${m}`,
      ]),
    ),
  ),
  // An options object with `shell: true` makes any spawn-like call run its text through a shell.
  row(
    'js.shell-option',
    JS,
    'critical',
    'shell_execution',
    'Process spawned through a shell (shell: true)',
    call(
      [
        'spawn',
        'spawnSync',
        'execFile',
        'execFileSync',
        'fork',
        ...methods('spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork', 'sync'),
      ],
      argTextMatches(-1, /\bshell\s*:\s*(?:true|['"`])/),
      /\bshell\s*:/,
    ),
  ),
  row(
    'js.cross-spawn',
    JS,
    'critical',
    'shell_execution',
    'Process execution through cross-spawn',
    call(['cross-spawn.*', 'cross-spawn']),
  ),
  // A module loaded from request input runs whatever code the requester names.
  row(
    'js.require-input',
    JS,
    'critical',
    'dynamic_code_execution',
    'Module loaded from a path read from request or program input (runs its code)',
    call(['require', 'import', 'module.require', 'process.mainModule.require'], inputArg(0)),
  ),
  row(
    'js.node-pty',
    JS,
    'critical',
    'shell_execution',
    'Process started in a pseudo-terminal (node-pty)',
    call([
      'node-pty.spawn',
      'node-pty.fork',
      '@lydell/node-pty.spawn',
      '@homebridge/node-pty-prebuilt-multiarch.spawn',
    ]),
  ),
  // Bun's and Deno's own process APIs (globals).
  row(
    'js.runtime-spawn',
    JS,
    'critical',
    'shell_execution',
    'Process execution (Bun / Deno)',
    call(['Bun.spawn', 'Bun.spawnSync', 'Bun.$', 'Deno.run', 'Deno.Command'], propertyLine(0, 'cmd')),
  ),
  // `new Worker(code, { eval: true })` runs its first argument as code.
  row(
    'js.worker-eval',
    JS,
    'critical',
    'dynamic_code_execution',
    'Worker thread given code built at run time (eval: true)',
    call(['worker_threads.Worker'], all(argTextMatches(1, /\beval\s*:\s*true\b/), nonConstantArg(0))),
  ),
  row(
    'js.timer-input',
    JS,
    'critical',
    'dynamic_code_execution',
    'Timer given request or program input (a string argument is evaluated as code)',
    call(['setTimeout', 'setInterval', 'setImmediate'], inputArg(0)),
  ),
  // Server-side template injection: a template compiled from request input runs its expressions.
  row(
    'js.template-input',
    JS,
    'critical',
    'dynamic_code_execution',
    'Template compiled from request or program input (server-side template injection)',
    call(
      [
        'handlebars.compile',
        'handlebars.precompile',
        'squirrelly.Compile',
        'squirrelly.compile',
        'squirrelly.render',
        'pug.compile',
        'pug.render',
        'jade.compile',
        'jade.render',
        'ejs.compile',
        'ejs.render',
        'nunjucks.renderString',
        'nunjucks.compile',
        'lodash.template',
        'underscore.template',
        'dot.template',
        'dot.compile',
        'hogan.js.compile',
        'eta.render',
        'eta.compile',
        'twig.twig',
        'mustache.render',
        'doT.template',
        'art-template.render',
        'velocityjs.render',
        'marko.load',
      ],
      inputArg(0),
    ),
  ),
  // Code handed to a headless browser as a string runs in the page (puppeteer, playwright).
  row(
    'js.page-evaluate',
    JS,
    'critical',
    'dynamic_code_execution',
    'Headless-browser page given code built at run time',
    call(
      [
        '*page.evaluate',
        '*Page.evaluate',
        '*page.evaluateHandle',
        '*Page.evaluateHandle',
        '*page.evaluateOnNewDocument',
        '*frame.evaluate',
        '*Frame.evaluate',
        '*frame.evaluateHandle',
        '*Frame.evaluateHandle',
        '*.newPage().evaluate',
        '*.newPage().evaluateHandle',
        '*.mainFrame().evaluate',
      ],
      // Session 12: request or program input handed over whatever its type (a string runs as code).
      any(all(stringArg(0), evaluatesUnsafeCode(0)), inputArg(0)),
      /\.evaluate/,
    ),
  ),
  // addScriptTag({ content }) runs `content` in the page: computed content is code built at run time.
  row(
    'js.page-script-tag',
    JS,
    'critical',
    'dynamic_code_execution',
    'Headless-browser page given a script tag whose content is built at run time',
    call(
      ['*page.addScriptTag', '*Page.addScriptTag', '*frame.addScriptTag', '*Frame.addScriptTag', '?.addScriptTag'],
      all(
        argTextMatches(0, /\bcontent\s*:/),
        not(argTextMatches(0, /^\{\s*content\s*:\s*(?:'[^'\\\n]*'|"[^"\\\n]*")\s*,?\s*\}$/)),
      ),
      /\.addScriptTag/,
    ),
  ),
  // A page taken from `browser.pages()` / `context.pages()` (indexed or destructured) reaches the
  // analyzer as an unknown receiver (`?.evaluate`); in a snippet that lists pages, a string of
  // code built at run time handed to `.evaluate` runs in the page as well.
  row(
    'js.pages-evaluate',
    JS,
    'critical',
    'dynamic_code_execution',
    'Headless-browser page (from pages()) given code built at run time',
    call(['?.evaluate', '?.evaluateHandle'], all(stringArg(0), evaluatesUnsafeCode(0)), /\.pages\(\)/),
  ),
  // jQuery's globalEval runs its string argument as a script in the global scope.
  // `[].constructor.constructor(code)` is the Function constructor reached through any value's prototype chain.
  row(
    'js.constructor-constructor',
    JS,
    'critical',
    'dynamic_code_execution',
    'Function constructor reached through .constructor.constructor given code built at run time',
    call(['*.constructor.constructor'], evaluatesUnsafeCode(0)),
  ),
  // Session 16 (semgrep's tofastproperties-code-execution): bluebird's util.toFastProperties (and
  // the copies of it in other promise libraries) holds `eval(obj)` of its argument. In bluebird's
  // releases that eval follows a `return`; the receiver here is not resolved to a known release,
  // so computed code is judged as eval's argument would be (constant text is not flagged).
  row(
    'js.to-fast-properties',
    JS,
    'critical',
    'dynamic_code_execution',
    'toFastProperties given a value built at run time (its body evaluates its argument with eval; fail closed)',
    call(['toFastProperties', ...methods('toFastProperties')], evaluatesUnsafeCode(0)),
  ),
  // Session 16: thenify before 3.3.1 builds its wrapper with eval from the function's name (the
  // multiArgs option enters that code only as JSON.stringify's output, data, so it is not a sink).
  row(
    'js.thenify-function-name',
    JS,
    'critical',
    'dynamic_code_execution',
    'thenify given a function whose name is evaluated as code',
    call(['thenify', 'thenify.withCallback'], unseenFunctionName(0)),
  ),
  row(
    'js.jquery-global-eval',
    JS,
    'critical',
    'dynamic_code_execution',
    'jQuery globalEval of code built at run time',
    call(['$.globalEval', 'jQuery.globalEval'], evaluatesUnsafeCode(0)),
  ),
  row(
    'js.vm2-script',
    JS,
    'critical',
    'dynamic_code_execution',
    'Code compiled for a vm2 sandbox',
    call(['vm2.VMScript'], evaluatesUnsafeCode(0)),
  ),
  row(
    'js.sandbox-run',
    JS,
    'critical',
    'dynamic_code_execution',
    'Code run in the sandbox package',
    call(['sandbox#run', 'sandbox.Sandbox#run', 'sandbox#run'], evaluatesUnsafeCode(0)),
  ),
  // js-yaml 3's load uses DEFAULT_FULL_SCHEMA (`!!js/function` builds functions) unless given a
  // schema; js-yaml 4's load is safe by default. The version is not in a snippet, so a load is
  // judged by what is safe in BOTH (fail closed, docs/code-scanner.md "js-yaml"):
  //  - a FAILSAFE/JSON/CORE/DEFAULT_SAFE schema (3: safe schemas; 4: DEFAULT_SAFE is gone, so the
  //    safe default applies);
  //  - a schema built with `.extend(...)` from a named base schema and only js-yaml-js-types'
  //    `undefined` / `regexp` types: `.extend` is js-yaml 4's API (a js-yaml 3 schema has no such
  //    method, so the call throws before anything is loaded) and those types build no code.
  // `DEFAULT_SCHEMA` alone stays flagged: in js-yaml 3 it is an alias of the full schema.
  // The options regex is anchored and unambiguous (no two adjacent quantifiers can share a
  // character), so it runs in linear time on the argument text.
  row(
    'js.yaml-load',
    JS,
    'critical',
    'unsafe_deserialization',
    'js-yaml load without a schema that is safe in js-yaml 3 and 4 (js-yaml 3 runs !!js/function; the version is not known here)',
    call(
      ['js-yaml.load', 'js-yaml.loadAll', 'yamljs.parse', 'yamljs.load'],
      all(
        not(argTextMatches(1, /\b(?:FAILSAFE|JSON|CORE|DEFAULT_SAFE)_SCHEMA\b/)),
        not(
          argTextMatches(
            1,
            /^\{\s*schema\s*:\s*(?:[\w$]+\.(?:DEFAULT|CORE|JSON|FAILSAFE)_SCHEMA\.extend\(\s*require\(\s*['"]js-yaml-js-types['"]\s*\)\.(?:undefined|regexp)\s*\)|require\(\s*['"]js-yaml-js-types['"]\s*\)\.(?:undefined|regexp)\.extend\(\s*[\w$]+\.(?:DEFAULT|CORE|JSON|FAILSAFE)_SCHEMA\s*\))\s*(?:,\s*)?\}$/,
          ),
        ),
      ),
    ),
  ),
  row(
    'js.serialize-to-js',
    JS,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (serialize-to-js)',
    call(['serialize-to-js.deserialize']),
  ),
  row(
    'js.code-family-unclassified',
    JS,
    'critical',
    'dynamic_code_execution',
    FAMILY_NOTE,
    unclassified(
      ['vm.*', 'vm2.*', 'sandbox.*', 'safe-eval', 'safe-eval.*', 'static-eval', 'notevil'],
      [
        'vm.createContext',
        'vm.isContext',
        'vm.measureMemory',
        'vm.constants',
        'vm2.VM',
        'vm2.NodeVM',
        'vm2.VMError',
        'sandbox.Sandbox',
        'sandbox',
      ],
    ),
  ),
  row(
    'js.deserialization-family-unclassified',
    JS,
    'critical',
    'unsafe_deserialization',
    FAMILY_NOTE,
    unclassified(['node-serialize.*', 'serialize-to-js.*', 'funcster.*', 'cryo.*'], ['*.serialize', '*.stringify']),
  ),
  row(
    'js.process-binding',
    JS,
    'critical',
    'shell_execution',
    'Process spawning through an internal binding',
    call(['process.binding', 'process._linkedBinding'], constantArgIn(0, ['spawn_sync', 'process_wrap'])),
  ),
  row(
    'js.shell-packages',
    JS,
    'critical',
    'shell_execution',
    'Process execution through a shell package',
    call([
      'execa',
      'execa.*',
      'execa.execa',
      'execa.execaSync',
      'execa.execaCommand',
      'shelljs.exec',
      'cross-spawn',
      'cross-spawn.sync',
      'zx.$',
      // Session 14 (CodeQL's JavaScript CommandInjection tests): more packages that start processes.
      'cross-spawn-async',
      'exec',
      'exec-async',
      'remote-exec',
      'foreground-child',
      'execSeries',
      'exec-series',
      'child-process-promise.exec',
      'child-process-promise.spawn',
      'child-process-promise.execFile',
    ]),
  ),
  // A global looked up by a computed name and called (`window[msg.name](msg.arg)`): the name can
  // be `eval` or `Function` (session 14, semgrep-rules' unsafe-dynamic-method).
  row(
    'js.computed-global-call',
    JS,
    'critical',
    'dynamic_code_execution',
    'Global function chosen by a computed name (it can be eval or Function)',
    call(['global[computed]']),
  ),
  // SSH clients run their command on another machine: a process execution all the same.
  row(
    'js.ssh-exec',
    JS,
    'critical',
    'shell_execution',
    'Command execution over SSH',
    call([
      'ssh2#exec',
      'ssh2().exec',
      'ssh2.Client#exec',
      'ssh2.Client().exec',
      'ssh2-streams.SSH2Stream#exec',
      'ssh2-streams.SSH2Stream().exec',
      'node-ssh.NodeSSH#execCommand',
      'node-ssh.NodeSSH#exec',
      'node-ssh.NodeSSH().execCommand',
      'node-ssh.NodeSSH().exec',
    ]),
  ),
  // opener's `command` option names the program it starts.
  row(
    'js.opener-command',
    JS,
    'critical',
    'shell_execution',
    'Process execution: opener with a command option',
    call(['opener'], argTextMatches(1, /\bcommand\s*:/)),
  ),
  row(
    'js.eval',
    JS,
    'critical',
    'dynamic_code_execution',
    'Dynamic code execution',
    call(['eval'], evaluatesUnsafeCode(0)),
  ),
  row(
    'js.function',
    JS,
    'critical',
    'dynamic_code_execution',
    'Function constructor (dynamic code)',
    call(['Function', 'Function.prototype.constructor'], evaluatesUnsafeCode(-1)),
  ),
  // Issue 24, CodeQL's CWE-094 query tests: further places where JavaScript text becomes code.
  // AngularJS scope methods and the injected $compile / $parse / $interpolate services evaluate
  // Angular expressions (no sandbox since AngularJS 1.6); a function argument is not an expression.
  row(
    'js.angular-expression',
    JS,
    'critical',
    'dynamic_code_execution',
    'AngularJS expression evaluated from a computed string',
    call(
      [
        ...methods('$eval', '$evalAsync', '$apply', '$applyAsync', '$watch', '$watchCollection', '$watchGroup'),
        '$compile',
        '$parse',
        '$interpolate',
      ],
      all(evaluatesUnsafeCode(0), not(argTextMatches(0, /^(?:async\s+)?function\b|^[\w$]+\s*=>|^\([^)]*\)\s*=>/))),
    ),
  ),
  // Session 16: the orderBy filter's second argument, when a string, is an Angular expression ($parse).
  row(
    'js.angular-orderby-expression',
    JS,
    'critical',
    'dynamic_code_execution',
    'AngularJS orderBy filter given an expression built at run time (parsed by $parse)',
    call(
      ['$filter(orderby)', 'orderByFilter'],
      all(evaluatesUnsafeCode(1), not(argTextMatches(1, /^(?:async\s+)?function\b|^[\w$]+\s*=>|^\([^)]*\)\s*=>/))),
    ),
  ),
  // WebAssembly modules compiled from bytes the snippet does not hold are code it cannot see.
  row(
    'js.webassembly',
    JS,
    'critical',
    'dynamic_code_execution',
    'WebAssembly compiled from computed bytes',
    call(
      [
        'WebAssembly.compile',
        'WebAssembly.compileStreaming',
        'WebAssembly.instantiate',
        'WebAssembly.instantiateStreaming',
        'WebAssembly.Module',
      ],
      nonConstantArg(0),
    ),
  ),
  // An event-handler attribute (`onclick`, …) set through jQuery is code the browser runs.
  row(
    'js.jquery-event-attribute',
    JS,
    'critical',
    'dynamic_code_execution',
    'Event-handler attribute set from a computed string (the browser runs it as code)',
    call(
      ['$().attr', 'jQuery().attr', '$().prop', 'jQuery().prop'],
      all(constantArgMatches(0, /^on/i), nonConstantArg(1)),
    ),
  ),
  // Node's Module#_compile compiles a module from source text; a React Native WebView runs the
  // JavaScript it is given in the page.
  row(
    'js.module-compile',
    JS,
    'critical',
    'dynamic_code_execution',
    'Module source compiled from a computed string',
    call(
      ['module#_compile', 'module.constructor#_compile', 'module.Module#_compile', ...methods('injectJavaScript')],
      evaluatesUnsafeCode(0),
    ),
  ),
  row(
    'js.webview-injected-script',
    JS,
    'critical',
    'dynamic_code_execution',
    'React Native WebView given computed JavaScript to run (injectedJavaScript)',
    syntax('injectedJavaScript={computed}'),
  ),
  // Text written to an interactive shell started with node-pty is a command line.
  row(
    'js.pty-write',
    JS,
    'critical',
    'shell_execution',
    'Computed text written to a node-pty shell',
    call(['node-pty.spawn().write', 'node-pty.fork().write'], nonConstantArg(0)),
  ),
  // webix templates are compiled into functions; a template that is not a string literal is
  // computed (or a function returning computed text).
  row(
    'js.webix-template',
    JS,
    'critical',
    'dynamic_code_execution',
    'webix template built from a computed value',
    call(['webix.ui'], argTextMatches(0, /\btemplate\s*:\s*[^'"\s]/)),
  ),
  // MongoDB's `$where` runs JavaScript on the server; only a plain string literal is constant.
  row(
    'js.mongo-where',
    JS,
    'critical',
    'dynamic_code_execution',
    'MongoDB $where (server-side JavaScript) built from a computed value',
    call(
      methods(
        'find',
        'findOne',
        'count',
        'countDocuments',
        'deleteOne',
        'deleteMany',
        'updateOne',
        'updateMany',
        'where',
      ),
      all(argTextMatches(0, /\$where\s*:/), not(argTextMatches(0, /\$where\s*:\s*(?:'[^'\\]*'|"[^"\\]*")\s*[,}]/))),
    ),
  ),
  row(
    'js.eval-constant',
    JS,
    'low',
    'dynamic_code_execution',
    'Evaluation of a constant code string (scanned: no critical finding inside)',
    call(['eval', 'Function'], evaluatesConstantCode(-1)),
  ),
  row(
    'js.timer-string',
    JS,
    'critical',
    'dynamic_code_execution',
    'Timer given a code string',
    call(['setTimeout', 'setInterval', 'setImmediate'], all(stringArg(0), evaluatesUnsafeCode(0))),
  ),
  // Code run by vm / vm2: computed code, constant code that itself contains a critical finding,
  // or a context / sandbox that carries request input (its values are reachable from the code).
  row(
    'js.vm',
    JS,
    'critical',
    'dynamic_code_execution',
    'Code execution through vm',
    call(
      [
        'vm.runInThisContext',
        'vm.runInNewContext',
        'vm.runInContext',
        'vm.compileFunction',
        'vm.Script',
        'vm.SourceTextModule',
        'vm2.VM#run',
        'vm2.NodeVM#run',
      ],
      any(all(not(argValuesAllIn(0, COMPILED_SCRIPTS)), evaluatesUnsafeCode(0)), inputArg(1), inputArg(2)),
    ),
  ),
  // A compiled script was judged where it was compiled (vm.Script / VMScript above); running it
  // is critical only in a context that carries input.
  row(
    'js.vm-script-run',
    JS,
    'critical',
    'dynamic_code_execution',
    'Code execution through vm in a context given request or program input',
    call(['vm.Script#runIn*'], inputArg(0)),
  ),
  row(
    'js.vm-sandbox-input',
    JS,
    'critical',
    'dynamic_code_execution',
    'vm context or vm2 sandbox given request or program input',
    call(['vm2.VM', 'vm2.NodeVM', 'vm.createContext'], inputArg(0)),
  ),
  // Session 16 (semgrep's vm2-context-injection): a sandbox holding a value the function's caller
  // chooses; host objects in a vm2 sandbox are a known escape route, and the caller is not shown.
  row(
    'js.vm2-sandbox-parameter',
    JS,
    'critical',
    'dynamic_code_execution',
    'vm2 sandbox given a parameter of the enclosing function (the caller chooses what sandboxed code reaches)',
    call(['vm2.VM', 'vm2.NodeVM'], sandboxFromParameter(0)),
  ),
  // Session 13: isolated-vm runs code in its own V8 isolate; computed code is still code run at
  // run time (an escape needs only a Reference or an ExternalCopy the host put in the context), so
  // it is judged like vm2: computed code critical, constant code scanned.
  row(
    'js.isolated-vm',
    JS,
    'critical',
    'dynamic_code_execution',
    'Code execution through isolated-vm',
    call(
      [
        'isolated-vm.Isolate#createContext*().eval*',
        'isolated-vm.Isolate#compileScript*',
        'isolated-vm.Isolate#compileModule*',
        '*.evalSync',
        '*.evalIgnored',
        '*.evalClosure',
        '*.evalClosureSync',
        '*.evalClosureIgnored',
        '*.compileScriptSync',
        '*.compileModuleSync',
        '*#evalSync',
        '*#evalClosureSync',
        '*#compileScriptSync',
      ],
      evaluatesUnsafeCode(0),
    ),
  ),
  row(
    'js.vm-constant',
    JS,
    'low',
    'dynamic_code_execution',
    'Evaluation of a constant code string (scanned: no critical finding inside)',
    call(
      [
        'vm.runInThisContext',
        'vm.runInNewContext',
        'vm.runInContext',
        'vm.compileFunction',
        'vm.Script',
        'vm2.VM#run',
        'vm2.NodeVM#run',
      ],
      evaluatesConstantCode(0),
    ),
  ),
  row(
    'js.deserialize',
    JS,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (functions revived on load)',
    call(['node-serialize.unserialize', 'serialize-to-js.deserialize', 'funcster.deepDeserialize']),
  ),
  row(
    'js.weak-password-hash',
    JS,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(['md5', 'sha1', 'crypto-js.MD5', 'crypto-js.SHA1', 'crypto-js.HmacMD5'], passwordContext(), PASSWORD_HINT),
  ),
  row(
    'js.weak-password-hash-create',
    JS,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(['crypto.createHash'], all(constantArgIn(0, ['md5', 'sha1']), passwordContext()), PASSWORD_HINT),
  ),
  row(
    'js.weak-password-hash-update',
    JS,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) fed a password',
    call(['crypto.createHash(md5).update', 'crypto.createHash(sha1).update'], passwordArg(), PASSWORD_HINT),
  ),
  row(
    'js.sql',
    JS,
    'high',
    'sql_injection',
    'SQL statement built from run-time values passed to a query call',
    call(
      methods('query', 'execute', 'raw', 'exec', '$queryRawUnsafe', '$executeRawUnsafe', 'prepare', 'unsafe'),
      dynamicSql([0]),
      SQL_HINT,
    ),
  ),
  row(
    'js.xss-property',
    JS,
    'medium',
    'xss_sink',
    'HTML injection sink (innerHTML/outerHTML assignment)',
    propertyWrite('innerHTML', 'outerHTML'),
  ),
  row(
    'js.xss-call',
    JS,
    'medium',
    'xss_sink',
    'HTML injection sink',
    call(['document.write', 'document.writeln', '*.insertAdjacentHTML']),
  ),
  row(
    'js.xss-react',
    JS,
    'medium',
    'xss_sink',
    'HTML injection sink (dangerouslySetInnerHTML)',
    syntax('dangerouslySetInnerHTML'),
  ),
  row(
    'js.tls-off',
    JS,
    'high',
    'insecure_tls',
    'TLS certificate verification disabled',
    syntax('rejectUnauthorized:false', 'NODE_TLS_REJECT_UNAUTHORIZED=0'),
  ),
  row(
    'js.dynamic-require',
    JS,
    'medium',
    'dynamic_import',
    'Module name computed at run time',
    call(['require', 'import', 'module.require'], nonConstantArg(0)),
  ),
  row(
    'js.file-delete',
    JS,
    'medium',
    'file_deletion',
    'File or directory deletion',
    call([
      'fs.rm',
      'fs.rmSync',
      'fs.rmdir',
      'fs.rmdirSync',
      'fs.unlink',
      'fs.unlinkSync',
      'fs.promises.rm',
      'fs.promises.rmdir',
      'fs.promises.unlink',
      'fs-extra.remove',
      'fs-extra.removeSync',
      'fs-extra.emptyDir',
      'rimraf',
      'rimraf.*',
      'del',
      'del.*',
    ]),
  ),
  row(
    'js.chmod-world',
    JS,
    'medium',
    'insecure_permissions',
    'World-writable file mode',
    call(['fs.chmod', 'fs.chmodSync', 'fs.promises.chmod'], worldWritableMode(1)),
  ),
  row(
    'js.socket',
    JS,
    'low',
    'raw_socket',
    'Raw network socket',
    call([
      'net.connect',
      'net.createConnection',
      'net.Socket',
      'net.createServer',
      'dgram.createSocket',
      'tls.connect',
    ]),
  ),
  row(
    'js.http',
    JS,
    'low',
    'outbound_http',
    'Outbound HTTP request',
    call([
      'fetch',
      'axios',
      'axios.*',
      'http.request',
      'http.get',
      'https.request',
      'https.get',
      'node-fetch',
      'got',
      'got.*',
      'request',
      'request.*',
      'superagent.*',
      'undici.request',
      'undici.fetch',
      'XMLHttpRequest',
    ]),
  ),

  // ── Go ──────────────────────────────────────────────────────────────────────────────────
  row(
    'go.exec',
    GO,
    'critical',
    'shell_execution',
    'Process execution',
    call([
      'os/exec.Command',
      'os/exec.CommandContext',
      'os/exec.Cmd',
      'syscall.RawSyscall',
      'golang.org/x/sys/unix.ForkExec',
      'syscall.Exec',
      'syscall.ForkExec',
      'syscall.StartProcess',
      'os.StartProcess',
      'golang.org/x/sys/unix.Exec',
    ]),
  ),
  // Session 15: computed text written to a started command's standard input (a shell reads it
  // as its script: `exec.Command("bash")` + `StdinPipe().Write(…)`); the Command itself has its row.
  row(
    'go.exec-stdin',
    GO,
    'critical',
    'shell_execution',
    "Computed input written to a process's standard input",
    call(
      [
        'os/exec.Command().StdinPipe().Write',
        'os/exec.Command().StdinPipe().WriteString',
        'os/exec.CommandContext().StdinPipe().Write',
        'os/exec.CommandContext().StdinPipe().WriteString',
        '*.Cmd#StdinPipe().Write',
        '*.Cmd#StdinPipe().WriteString',
      ],
      // `[]byte("exit\n")`, `[]byte("a" + "b")`: a constant script, read as text.
      all(nonConstantArg(0), not(argTextMatches(0, GO_CONSTANT_BYTES))),
    ),
  ),
  row(
    'go.execabs',
    GO,
    'critical',
    'shell_execution',
    'Process execution (golang.org/x/sys/execabs)',
    call([
      'golang.org/x/sys/execabs.Command',
      'golang.org/x/sys/execabs.CommandContext',
      'golang.org/x/sys/execabs.Cmd',
    ]),
  ),
  row(
    'go.cmd-package',
    GO,
    'critical',
    'shell_execution',
    'Process execution (github.com/go-cmd/cmd, github.com/bitfield/script)',
    call([
      'github.com/go-cmd/cmd.NewCmd',
      'github.com/go-cmd/cmd.NewCmdOptions',
      'github.com/bitfield/script.Exec',
      'github.com/bitfield/script.ExecForEach',
    ]),
  ),
  row(
    'go.family-unclassified',
    GO,
    'critical',
    'shell_execution',
    FAMILY_NOTE,
    unclassified(
      ['os/exec.*', 'golang.org/x/sys/execabs.*'],
      [
        '*.LookPath',
        '*.ErrNotFound',
        '*.Error',
        '*.ExitError',
        '*.ErrDot',
        '*.ErrWaitDelay',
        // A command received as a parameter (`c *exec.Cmd`): describing it runs nothing.
        '*.Cmd#String',
        '*.Cmd#Environ',
      ],
    ),
  ),
  // Session 13: a template parsed from request input (server-side template injection): the template
  // calls the methods of the data it is executed with and the functions of its FuncMap.
  row(
    'go.template-input',
    GO,
    'critical',
    'dynamic_code_execution',
    'Template parsed from request or program input (server-side template injection)',
    call(
      [
        'text/template.New().Parse',
        'text/template.New().Funcs().Parse',
        'text/template.New().Delims().Parse',
        'text/template.New().Option().Parse',
        'html/template.New().Parse',
        'html/template.New().Funcs().Parse',
        'html/template.New().Delims().Parse',
        'html/template.New().Option().Parse',
        '*.Template#Parse',
      ],
      inputArg(0),
    ),
  ),
  // A Go plugin's init functions run when it is opened: a computed path loads any code.
  row(
    'go.plugin-open',
    GO,
    'critical',
    'dynamic_code_execution',
    'Go plugin opened from a computed path (runs its code)',
    call(['plugin.Open'], nonConstantArg(0)),
  ),
  // Embedded interpreters (JavaScript: goja, otto; Go: yaegi) given source built at run time.
  row(
    'go.interpreter-eval',
    GO,
    'critical',
    'dynamic_code_execution',
    'Embedded interpreter given code built at run time',
    call(
      [
        'github.com/dop251/goja.New().RunString',
        'github.com/dop251/goja.New().RunScript',
        'github.com/dop251/goja.Runtime#RunString',
        'github.com/dop251/goja.Runtime#RunScript',
        'github.com/dop251/goja.Compile',
        'github.com/robertkrimen/otto.New().Run',
        'github.com/robertkrimen/otto.New().Eval',
        'github.com/robertkrimen/otto.New().Compile',
        'github.com/robertkrimen/otto.Otto#Run',
        'github.com/robertkrimen/otto.Otto#Eval',
        'github.com/robertkrimen/otto.Otto#Compile',
        'github.com/robertkrimen/otto.Run',
        'github.com/traefik/yaegi/interp.New().Eval',
        'github.com/traefik/yaegi/interp.New().EvalPath',
        'github.com/traefik/yaegi/interp.New().CompilePath',
        'github.com/traefik/yaegi/interp.Interpreter#Eval',
        'github.com/traefik/yaegi/interp.Interpreter#EvalPath',
        'github.com/traefik/yaegi/interp.Interpreter#CompilePath',
        'github.com/traefik/yaegi/interp.Interpreter#Compile',
      ],
      any(nonConstantArg(0), nonConstantArg(1)),
      /goja|otto|yaegi/,
    ),
  ),
  row(
    'go.weak-password-hash',
    GO,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(['crypto/md5.Sum', 'crypto/md5.New', 'crypto/sha1.Sum', 'crypto/sha1.New'], passwordContext(), PASSWORD_HINT),
  ),
  row(
    'go.weak-password-hash-write',
    GO,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) fed a password',
    call(['crypto/md5.New().Write', 'crypto/sha1.New().Write'], passwordArg(), PASSWORD_HINT),
  ),
  row(
    'go.weak-password-hash-writestring',
    GO,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) fed a password',
    call(
      ['io.WriteString'],
      all(argValueMatches(0, ['crypto/md5.New()', 'crypto/sha1.New()']), passwordArg()),
      PASSWORD_HINT,
    ),
  ),
  row(
    'go.sql',
    GO,
    'high',
    'sql_injection',
    'SQL statement built from run-time values passed to a query call',
    call(
      methods(
        'Query',
        'QueryRow',
        'Exec',
        'QueryContext',
        'QueryRowContext',
        'ExecContext',
        'Prepare',
        'Raw',
        'Select',
        'Get',
      ),
      dynamicSql(),
      SQL_HINT,
    ),
  ),
  row(
    'go.tls-off',
    GO,
    'high',
    'insecure_tls',
    'TLS certificate verification disabled (InsecureSkipVerify)',
    syntax('InsecureSkipVerify:true'),
  ),
  row(
    'go.file-delete',
    GO,
    'medium',
    'file_deletion',
    'File or directory deletion',
    call(['os.Remove', 'os.RemoveAll']),
  ),
  row(
    'go.chmod-world',
    GO,
    'medium',
    'insecure_permissions',
    'World-writable file mode',
    call(['os.Chmod', 'os.Mkdir', 'os.MkdirAll', 'os.WriteFile', 'io/ioutil.WriteFile'], worldWritableMode(-1)),
  ),
  row(
    'go.socket',
    GO,
    'low',
    'raw_socket',
    'Raw network socket',
    call([
      'net.Dial',
      'net.DialTimeout',
      'net.DialTCP',
      'net.DialUDP',
      'net.Listen',
      'net.ListenTCP',
      'net.ListenUDP',
      'net.ListenPacket',
    ]),
  ),
  row(
    'go.http',
    GO,
    'low',
    'outbound_http',
    'Outbound HTTP request',
    call([
      'net/http.Get',
      'net/http.Post',
      'net/http.PostForm',
      'net/http.Head',
      'net/http.NewRequest',
      'net/http.NewRequestWithContext',
      'net/http.DefaultClient.Do',
      'net/http.DefaultClient.Get',
    ]),
  ),

  // ── Java ────────────────────────────────────────────────────────────────────────────────
  row(
    'java.process',
    JAVA,
    'critical',
    'shell_execution',
    'Process execution',
    call([
      'java.lang.Runtime.getRuntime().exec',
      'java.lang.Runtime#exec',
      'java.lang.ProcessBuilder',
      'java.lang.ProcessBuilder#start',
      'java.lang.ProcessBuilder#command(*).start',
      'org.apache.commons.exec.DefaultExecutor#execute',
    ]),
  ),
  // The command of a ProcessBuilder set or changed after construction; native code loaded by a computed name.
  row(
    'java.process-command',
    JAVA,
    'critical',
    'shell_execution',
    'Process command set on a ProcessBuilder',
    call(
      ['java.lang.ProcessBuilder#command', 'java.lang.ProcessBuilder(*).command', 'java.lang.ProcessBuilder().command'],
      hasArg(0),
    ),
  ),
  row(
    'java.native-load',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Native library loaded from a computed name (runs its code)',
    call(
      [
        'java.lang.Runtime#load',
        'java.lang.Runtime#loadLibrary',
        'java.lang.Runtime.getRuntime().load',
        'java.lang.Runtime.getRuntime().loadLibrary',
        'java.lang.System.load',
        'java.lang.System.loadLibrary',
      ],
      nonConstantArg(0),
    ),
  ),
  // A class the request names (unsafe reflection, CWE-470): Class.forName runs its static
  // initialiser, newInstance / getDeclaredConstructor().newInstance() a constructor (session 12).
  row(
    'java.class-from-input',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Class chosen by request input (unsafe reflection: its initialiser and constructors run)',
    call(['java.lang.Class.forName', 'java.lang.ClassLoader#loadClass', '*.loadClass', '*#loadClass'], inputArg(0)),
  ),
  // Session 16 (red team): a process, code-execution or deserialization class or method reached by
  // reflection with a constant name (`Class.forName("java.lang." + "Runtime")`,
  // `k.getMethod("exec", String.class)`, `lookup.findVirtual(Runtime.class, "exec", t)`): the
  // reflective call runs what the direct call would, so it fails closed as the family does.
  row(
    'java.reflective-family',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Process, code-execution or deserialization class or method reached by reflection (fail closed)',
    call(
      ['java.lang.Class.forName', 'java.lang.ClassLoader#loadClass', '*.loadClass', '*#loadClass'],
      constantArgMatches(0, JAVA_REFLECTED_FAMILY_CLASS),
    ),
  ),
  row(
    'java.reflective-family-method',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Process, code-execution or deserialization class or method reached by reflection (fail closed)',
    call(['*getMethod', '*getDeclaredMethod'], constantArgMatches(0, JAVA_REFLECTED_FAMILY_METHOD)),
  ),
  row(
    'java.reflective-family-handle',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Process, code-execution or deserialization class or method reached by reflection (fail closed)',
    call(['*findVirtual', '*findStatic'], constantArgMatches(1, JAVA_REFLECTED_FAMILY_METHOD)),
  ),
  // Subclasses of ObjectInputStream (commons-io ClassLoaderObjectInputStream, custom streams) read objects the same way.
  row(
    'java.deserialize-subclass',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization through an ObjectInputStream subclass',
    call(['*ObjectInputStream#readObject', '*ObjectInputStream#readUnshared']),
  ),
  row(
    'java.script-eval',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Dynamic code execution through a script engine',
    call(
      [
        'javax.script.ScriptEngine#eval',
        'javax.script.ScriptEngineManager#getEngineByName(*).eval',
        'javax.script.ScriptEngineManager#getEngineByExtension(*).eval',
        'groovy.lang.GroovyShell#evaluate',
        'groovy.lang.GroovyShell#parse',
        'groovy.lang.GroovyShell#run',
        'groovy.util.Eval.me',
        'groovy.util.Eval.x',
        'groovy.util.Eval.xy',
        'groovy.util.Eval.xyz',
        'groovy.lang.GroovyClassLoader#parseClass',
        'javax.script.ScriptEngine#compile',
        'javax.script.Compilable#compile',
        'org.mvel2.MVEL.eval',
        'org.mvel2.MVEL.executeExpression',
        'org.springframework.expression.spel.standard.SpelExpressionParser#parseExpression',
        'org.springframework.expression.ExpressionParser#parseExpression',
        'ognl.Ognl.getValue',
        'ognl.Ognl.setValue',
        'ognl.Ognl.parseExpression',
        'com.opensymphony.xwork2.ognl.OgnlUtil#getValue',
        'com.opensymphony.xwork2.ognl.OgnlUtil#setValue',
        'com.opensymphony.xwork2.ognl.OgnlUtil#findValue',
        'com.opensymphony.xwork2.ognl.OgnlUtil#compile',
        'com.opensymphony.xwork2.util.ValueStack#findValue',
        'com.opensymphony.xwork2.util.ValueStack#findString',
        'com.opensymphony.xwork2.util.ValueStack#setValue',
        'com.opensymphony.xwork2.util.ValueStack#setParameter',
        'com.opensymphony.xwork2.ognl.OgnlValueStack#findValue',
        'com.opensymphony.xwork2.ognl.OgnlValueStack#findString',
        'com.opensymphony.xwork2.ognl.OgnlValueStack#setValue',
        'com.opensymphony.xwork2.ognl.OgnlValueStack#setParameter',
      ],
      nonConstantArg(0),
    ),
  ),
  // Bean Validation interpolates EL (`${…}`) in a constraint message template: a template built
  // from the validated value is EL injection (Hibernate Validator; semgrep-rules' el-injection).
  row(
    'java.constraint-template-el',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Bean Validation message template built at run time (EL in it is evaluated)',
    call(['*#buildConstraintViolationWithTemplate', '*.buildConstraintViolationWithTemplate'], nonConstantArg(0)),
  ),
  // JBoss Seam's Log interpolates `#{…}` EL in its message: a message built from input is EL
  // injection (session 14, semgrep-rules' seam-log-injection test).
  row(
    'java.seam-log-el',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'JBoss Seam log message built at run time (Seam evaluates #{…} EL in it)',
    call(
      ['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((m) => `org.jboss.seam.log.Log#${m}`),
      nonConstantArg(0),
    ),
  ),
  // Struts' reflection providers and text parser evaluate OGNL: a computed property name or
  // expression is code (session 14, semgrep-rules' ognl-injection test).
  row(
    'java.ognl-reflection-provider',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'OGNL evaluation of a computed expression',
    call(
      OGNL_PROVIDERS.flatMap((t) =>
        ['setProperties', 'setProperty', 'getValue', 'setValue', 'getRealTarget'].map((m) => `${t}#${m}`),
      ).concat([
        'com.opensymphony.xwork2.util.OgnlTextParser#evaluate',
        'com.opensymphony.xwork2.util.TextParser#evaluate',
      ]),
      nonConstantArg(0),
    ),
  ),
  row(
    'java.ognl-reflection-provider-name',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'OGNL evaluation of a computed property name',
    call(
      OGNL_PROVIDERS.flatMap((t) => ['getGetMethod', 'getSetMethod', 'getField'].map((m) => `${t}#${m}`)),
      nonConstantArg(1),
    ),
  ),
  // Expression Language and template engines reach arbitrary Java methods: evaluating a
  // computed expression or template is code execution (the expression is the second/fourth argument).
  row(
    'java.el-eval',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Expression Language evaluation of a computed expression',
    call(
      [
        'javax.el.ExpressionFactory#createValueExpression',
        'javax.el.ExpressionFactory#createMethodExpression',
        'jakarta.el.ExpressionFactory#createValueExpression',
        'jakarta.el.ExpressionFactory#createMethodExpression',
      ],
      nonConstantArg(1),
    ),
  ),
  row(
    'java.el-processor-eval',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Expression Language or BeanShell evaluation of a computed expression',
    call(
      [
        'javax.el.ELProcessor#eval',
        'javax.el.ELProcessor#getValue',
        'jakarta.el.ELProcessor#eval',
        'jakarta.el.ELProcessor#getValue',
        'bsh.Interpreter#eval',
        'bsh.Interpreter#source',
      ],
      nonConstantArg(0),
    ),
  ),
  // JEXL, Rhino and JShell evaluate expressions or Java/JavaScript source with full access.
  row(
    'java.expression-engines',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'JEXL, Rhino or JShell evaluation of a computed expression',
    call(methods('createExpression', 'createScript', 'createTemplate'), nonConstantArg(0), /commons\.jexl/),
  ),
  row(
    'java.rhino-eval',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'JEXL, Rhino or JShell evaluation of a computed expression',
    call(methods('evaluateString', 'compileString'), nonConstantArg(1), /org\.mozilla\.javascript/),
  ),
  row(
    'java.jshell-eval',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'JEXL, Rhino or JShell evaluation of a computed expression',
    call(methods('eval'), nonConstantArg(0), /jdk\.jshell/),
  ),
  row(
    'java.template-eval',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Velocity template evaluated from a computed string',
    call(
      ['org.apache.velocity.app.Velocity.evaluate', 'org.apache.velocity.app.VelocityEngine#evaluate'],
      nonConstantArg(3),
    ),
  ),
  row(
    'java.deserialize',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization',
    call([
      'java.io.ObjectInputStream#readObject',
      'java.io.ObjectInputStream#readUnshared',
      'java.beans.XMLDecoder#readObject',
      'com.thoughtworks.xstream.XStream#fromXML',
      'org.apache.commons.lang3.SerializationUtils.deserialize',
      'org.apache.commons.lang.SerializationUtils.deserialize',
      'com.caucho.hessian.io.HessianInput#readObject',
      'com.caucho.hessian.io.Hessian2Input#readObject',
      'com.cedarsoftware.util.io.JsonReader.jsonToJava',
      'com.cedarsoftware.util.io.JsonReader#readObject',
    ]),
  ),
  // fastjson with autoType switched on for the call builds any class the document names.
  row(
    'java.fastjson-autotype',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'fastjson parse with Feature.SupportAutoType (arbitrary classes on load)',
    call(
      [
        'com.alibaba.fastjson.JSON.parseObject',
        'com.alibaba.fastjson.JSON.parse',
        'com.alibaba.fastjson.JSON.parseArray',
      ],
      any(
        argTextMatches(1, /SupportAutoType/),
        argTextMatches(2, /SupportAutoType/),
        argTextMatches(3, /SupportAutoType/),
      ),
    ),
  ),
  row(
    'java.jackson-default-typing',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'Jackson polymorphic default typing (arbitrary classes on load)',
    call([
      'com.fasterxml.jackson.databind.ObjectMapper#enableDefaultTyping',
      'com.fasterxml.jackson.databind.ObjectMapper#enableDefaultTypingAsProperty',
      'com.fasterxml.jackson.databind.ObjectMapper#activateDefaultTyping',
      'com.fasterxml.jackson.databind.ObjectMapper#activateDefaultTypingAsProperty',
      'com.fasterxml.jackson.databind.json.JsonMapper.builder().activateDefaultTyping',
      '*.enableDefaultTyping',
      '*#enableDefaultTyping',
    ]),
  ),
  // Session 15: a read through a mapper of a snippet that types by class name (java.ts POLYMORPHIC):
  // the read is where the payload's class names are instantiated.
  row(
    'java.jackson-polymorphic-read',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'Jackson read with polymorphic typing by class name (default typing or @JsonTypeInfo with a class id: the payload names the classes it creates)',
    call(
      ['com.fasterxml.jackson.databind.ObjectMapper', 'com.fasterxml.jackson.databind.json.JsonMapper'].flatMap((t) =>
        ['readValue*', 'treeToValue', 'convertValue', 'reader*().read*'].map((m) => `${t}(polymorphic)#${m}`),
      ),
    ),
  ),
  row(
    'java.jaxrs-any-media-entity',
    JAVA,
    'critical',
    'unsafe_deserialization',
    "JAX-RS resource method reading a request entity under any media type (RESTEasy's providers include Java serialization, chosen by the caller's Content-Type)",
    syntax('jaxrs:entity-any-media-type'),
  ),
  row(
    'java.rmi-object-parameter',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'RMI remote interface method taking an object parameter (the server deserializes whatever object the caller sends)',
    syntax('rmi:remote-object-parameter'),
  ),
  row(
    'java.jms-object',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'JMS ObjectMessage payload deserialized',
    call(['javax.jms.ObjectMessage#getObject', 'jakarta.jms.ObjectMessage#getObject']),
  ),
  row(
    'java.rmi',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'Java RMI (arguments and results are deserialized objects)',
    call([
      'java.rmi.Naming.lookup',
      'java.rmi.Naming.bind',
      'java.rmi.Naming.rebind',
      'java.rmi.registry.LocateRegistry.createRegistry',
      'java.rmi.registry.LocateRegistry.getRegistry',
      'java.rmi.server.UnicastRemoteObject.exportObject',
    ]),
  ),
  // SnakeYAML's default constructor builds any class the document names before 2.0 (the version
  // is not known here; a SafeConstructor passed at construction is not tracked: fail closed).
  row(
    'java.snakeyaml',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'SnakeYAML load of arbitrary types (before SnakeYAML 2.0; the version is not known here)',
    call(['org.yaml.snakeyaml.Yaml#load', 'org.yaml.snakeyaml.Yaml#loadAll', 'org.yaml.snakeyaml.Yaml#loadAs']),
  ),
  // SnakeYAML's other entry points on a Yaml that is not built with a SafeConstructor: CodeQL's
  // query tests label `parse` too. They build events or nodes, but a call into the family that the
  // scanner does not classify fails closed (issue 24 item 4); a SafeConstructor Yaml is exempt.
  row(
    'java.snakeyaml-other',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'SnakeYAML entry point on a Yaml without a SafeConstructor (not classified as safe: fail closed)',
    call(['org.yaml.snakeyaml.Yaml#parse', 'org.yaml.snakeyaml.Yaml#compose', 'org.yaml.snakeyaml.Yaml#composeAll']),
  ),
  // A SpEL expression parsed from a computed string is code; its evaluation is where it runs. An
  // expression parsed from a constant is bound to `Expression(constant)#` by the analyzer and never
  // reaches these names; a SimpleEvaluationContext (no type references, no constructors, no bean
  // references) is the documented safe context.
  row(
    'java.spel-evaluate',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Evaluation of a SpEL expression parsed from a computed string',
    call(
      [
        'org.springframework.expression.ExpressionParser',
        'org.springframework.expression.spel.standard.SpelExpressionParser',
      ]
        .flatMap((p) => [`${p}#parseExpression()`, `${p}#parseRaw()`])
        .flatMap((e) => ['getValue', 'getValueType', 'getValueTypeDescriptor', 'setValue'].map((m) => `${e}.${m}`)),
      not(argValueStartsWith(0, ['org.springframework.expression.spel.support.SimpleEvaluationContext'])),
    ),
  ),
  // The same evaluation when the parser's type is out of sight (a helper's result, an undeclared
  // field, a parameter of an unknown type): `parseExpression(…)` evaluated at once is SpEL's API
  // shape (Spring's ExpressionParser), so it fails closed unless the parsed text is a constant.
  row(
    'java.spel-evaluate-unresolved',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Evaluation of an expression parsed from a computed string by a parser the snippet does not declare (SpEL-like; fail closed)',
    call(
      // `.`, not `#`: an instance of a declared type (`ExpressionParser#…`) is the row above's.
      ['*.parseExpression()', '*.parseRaw()'].flatMap((e) =>
        ['getValue', 'getValueType', 'getValueTypeDescriptor', 'setValue'].map((m) => `${e}.${m}`),
      ),
      not(argValueStartsWith(0, ['org.springframework.expression.spel.support.SimpleEvaluationContext'])),
    ),
  ),
  // Session 16, second wave: `SpelView` is the view class of Spring Boot 1.x's whitelabel error
  // page (ErrorMvcAutoConfiguration) and of Spring Security OAuth's whitelabel endpoints; it
  // evaluates each `${…}` placeholder of its template as SpEL, and the recursive versions (Boot
  // 1.1–1.3, OAuth before 2.0.10: CVE-2016-4977) evaluate the model values put into them too, so
  // request or error text in the model is code. Its body is not in the snippet (a class of the
  // framework or a same-package copy): a template with placeholders, or one built at run time,
  // fails closed. A snippet that defines SpelView itself is judged by that body instead.
  row(
    'java.spel-view-template',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'SpelView template: its ${…} placeholders, and the model values put into them, are evaluated as SpEL (class body not shown; fail closed)',
    call(
      ['SpelView', '*.SpelView'],
      all(
        any(nonConstantArg(0), constantArgMatches(0, /\$\{/)),
        sourceLacks(/\b(?:class|interface|record|enum)\s+SpelView\b/),
      ),
    ),
  ),
  // MVEL compiled expressions, scripts and templates run arbitrary Java. Where the source was
  // compiled is often out of sight (a field, another method): running a compiled MVEL object fails
  // closed unless the analyzer saw it compiled from a constant (`(constant)#`, never these names).
  row(
    'java.mvel-compiled',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'Execution of a compiled MVEL expression, script or template (its source is not a visible constant)',
    call([
      'org.mvel2.compiler.ExpressionCompiler#compile().getValue',
      'org.mvel2.compiler.ExpressionCompiler#compile().getDirectValue',
      'org.mvel2.compiler.CompiledAccExpression#getValue',
      'org.mvel2.jsr223.MvelScriptEngine#compile().eval',
      'org.mvel2.jsr223.MvelScriptEngine#evaluate',
      'org.mvel2.jsr223.MvelCompiledScript#eval',
      'org.mvel2.MVELRuntime.execute',
      'org.mvel2.templates.TemplateRuntime.execute',
    ]),
  ),
  row(
    'java.mvel-template-eval',
    JAVA,
    'critical',
    'dynamic_code_execution',
    'MVEL template evaluated from a computed string',
    call(['org.mvel2.templates.TemplateRuntime.eval'], nonConstantArg(0)),
  ),
  // Kryo instantiates any class the stream names unless class registration is required (set elsewhere, not visible here).
  row(
    'java.kryo',
    JAVA,
    'critical',
    'unsafe_deserialization',
    'Kryo deserialization (arbitrary classes unless registration is required)',
    call([
      'com.esotericsoftware.kryo.Kryo#readObject',
      'com.esotericsoftware.kryo.Kryo#readObjectOrNull',
      'com.esotericsoftware.kryo.Kryo#readClassAndObject',
      'com.esotericsoftware.kryo.kryo5.Kryo#readObject',
      'com.esotericsoftware.kryo.kryo5.Kryo#readObjectOrNull',
      'com.esotericsoftware.kryo.kryo5.Kryo#readClassAndObject',
    ]),
  ),
  // Item 4 of issue 24 in Java: a member of a process, script or deserialization class that no
  // row above classifies (a new API such as ProcessBuilder.startPipeline, a method the table does
  // not know) fails closed; the known-harmless members (configuration, primitive reads) are listed.
  row(
    'java.process-family-unclassified',
    JAVA,
    'critical',
    'shell_execution',
    FAMILY_NOTE,
    unclassified(
      [
        'java.lang.ProcessBuilder#*',
        'java.lang.ProcessBuilder.*',
        'java.lang.Runtime#*',
        'java.lang.Runtime.getRuntime().*',
      ],
      [
        ...['directory', 'environment', 'inheritIO', 'redirectInput', 'redirectOutput', 'redirectError'].map(
          (m) => `java.lang.ProcessBuilder#${m}`,
        ),
        'java.lang.ProcessBuilder#redirectErrorStream',
        'java.lang.ProcessBuilder.Redirect*',
        ...[
          'availableProcessors',
          'freeMemory',
          'totalMemory',
          'maxMemory',
          'gc',
          'version',
          'addShutdownHook',
          'removeShutdownHook',
          'runFinalization',
          'exit',
          'halt',
        ].flatMap((m) => [`java.lang.Runtime#${m}`, `java.lang.Runtime.getRuntime().${m}`]),
        'java.lang.Runtime.getRuntime',
        'java.lang.Runtime.version',
      ],
    ),
  ),
  row(
    'java.code-family-unclassified',
    JAVA,
    'critical',
    'dynamic_code_execution',
    FAMILY_NOTE,
    unclassified(
      [
        'groovy.lang.GroovyShell#*',
        'groovy.lang.GroovyClassLoader#*',
        'javax.script.ScriptEngine#*',
        'javax.script.Compilable#*',
      ],
      [
        ...['getContext', 'setVariable', 'getVariable', 'getProperty', 'setProperty', 'getClassLoader'].map(
          (m) => `groovy.lang.GroovyShell#${m}`,
        ),
        'groovy.lang.GroovyClassLoader#close',
        ...['get', 'put', 'getContext', 'setContext', 'createBindings', 'getBindings', 'setBindings', 'getFactory'].map(
          (m) => `javax.script.ScriptEngine#${m}`,
        ),
      ],
    ),
  ),
  row(
    'java.deserialization-family-unclassified',
    JAVA,
    'critical',
    'unsafe_deserialization',
    FAMILY_NOTE,
    unclassified(
      ['java.io.ObjectInputStream#*'],
      [
        // Primitive and byte reads, stream housekeeping, the filter, and the hook-only field reads
        // (defaultReadObject / readFields run only inside a readObject hook, whose outer call is reported).
        ...[
          'read',
          'readInt',
          'readUTF',
          'readBoolean',
          'readByte',
          'readChar',
          'readDouble',
          'readFloat',
          'readLong',
          'readShort',
          'readFully',
          'readLine',
          'readUnsignedByte',
          'readUnsignedShort',
          'readAllBytes',
          'readNBytes',
          'skipBytes',
          'skip',
          'available',
          'close',
          'mark',
          'reset',
          'markSupported',
          'transferTo',
          'defaultReadObject',
          'readFields',
          'registerValidation',
          'getObjectInputFilter',
          'setObjectInputFilter',
        ].map((m) => `java.io.ObjectInputStream#${m}`),
      ],
    ),
  ),
  row(
    'java.weak-password-hash',
    JAVA,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(
      ['java.security.MessageDigest.getInstance'],
      all(constantArgIn(0, ['md5', 'sha-1', 'sha1']), passwordContext()),
      PASSWORD_HINT,
    ),
  ),
  row(
    'java.weak-password-hash-utils',
    JAVA,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(
      [
        'org.apache.commons.codec.digest.DigestUtils.md5*',
        'org.apache.commons.codec.digest.DigestUtils.sha1*',
        'org.apache.commons.codec.digest.DigestUtils.sha*Hex',
      ],
      passwordContext(),
      PASSWORD_HINT,
    ),
  ),
  row(
    'java.weak-password-hash-digest',
    JAVA,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) fed a password',
    call(
      [
        'java.security.MessageDigest.getInstance(md5).digest',
        'java.security.MessageDigest.getInstance(md5).update',
        'java.security.MessageDigest.getInstance(sha-1).digest',
        'java.security.MessageDigest.getInstance(sha-1).update',
        'java.security.MessageDigest.getInstance(sha1).digest',
        'java.security.MessageDigest.getInstance(sha1).update',
      ],
      passwordArg(),
      PASSWORD_HINT,
    ),
  ),
  row(
    'java.sql',
    JAVA,
    'high',
    'sql_injection',
    'SQL statement built from run-time values passed to a query call',
    call(
      methods(
        'executeQuery',
        'executeUpdate',
        'execute',
        'executeLargeUpdate',
        'addBatch',
        'prepareStatement',
        'prepareCall',
        'createQuery',
        'createNativeQuery',
        'queryForList',
        'queryForObject',
        'update',
      ),
      dynamicSql([0]),
      SQL_HINT,
    ),
  ),
  row(
    'java.file-delete',
    JAVA,
    'medium',
    'file_deletion',
    'File or directory deletion',
    call([
      'java.io.File#delete',
      'java.io.File#deleteOnExit',
      'java.nio.file.Files.delete',
      'java.nio.file.Files.deleteIfExists',
      'org.apache.commons.io.FileUtils.deleteDirectory',
      'org.apache.commons.io.FileUtils.forceDelete',
    ]),
  ),
  row(
    'java.socket',
    JAVA,
    'low',
    'raw_socket',
    'Raw network socket',
    call([
      'java.net.Socket',
      'java.net.ServerSocket',
      'java.net.DatagramSocket',
      'java.nio.channels.SocketChannel.open',
    ]),
  ),
  row(
    'java.http',
    JAVA,
    'low',
    'outbound_http',
    'Outbound HTTP request',
    call([
      'java.net.URL#openConnection',
      'java.net.URL#openStream',
      'java.net.http.HttpClient.newHttpClient',
      'java.net.http.HttpClient.newBuilder',
      'java.net.http.HttpClient#send',
      'java.net.http.HttpClient#sendAsync',
    ]),
  ),
  row(
    'java.tls-off',
    JAVA,
    'high',
    'insecure_tls',
    'TLS hostname verification disabled',
    syntax('NoopHostnameVerifier', 'ALLOW_ALL_HOSTNAME_VERIFIER'),
  ),

  // ── Ruby ────────────────────────────────────────────────────────────────────────────────
  row(
    'rb.kernel-process',
    RB,
    'critical',
    'shell_execution',
    'Shell or process execution',
    call([
      'Kernel.system',
      'Kernel.exec',
      'Kernel.spawn',
      'Kernel.`',
      'Kernel.fork',
      'Process.spawn',
      'Process.exec',
      'IO.popen',
      'Open3.*',
      'PTY.spawn',
      'Kernel.syscall',
    ]),
  ),
  // The stdlib Shell class (shell.rb) runs its commands as processes: `Shell.cat(f)`,
  // `Shell.new.system(…)`, a Shell's `open`/`cat`/`echo` (session 14, semgrep-rules).
  row(
    'rb.shell-class',
    RB,
    'critical',
    'shell_execution',
    'Process execution through the Shell class (shell.rb)',
    call([
      ...['system', 'cat', 'echo', 'tee', 'glob', 'open', 'transact', 'rehash'].map((m) => `Shell.${m}`),
      'Shell.new().*',
      'Shell.cd().*',
      'Shell#*',
    ]),
  ),
  row('rb.backticks', RB, 'critical', 'shell_execution', 'Shell execution (backticks / %x)', syntax('subshell')),
  // Session 15: Rails cookies read back with Marshal (analyzers/ruby.ts marshalCookies).
  row(
    'rb.cookies-marshal',
    RB,
    'critical',
    'unsafe_deserialization',
    'Rails cookies deserialized with Marshal (cookies_serializer not :json)',
    syntax('marshal_cookies'),
  ),
  row(
    'rb.open-pipe',
    RB,
    'critical',
    'shell_execution',
    'Kernel#open of a command pipe',
    call(
      ['Kernel.open', 'IO.read', 'IO.readlines', 'IO.write', 'IO.foreach', 'URI.open'],
      constantArgMatches(0, /^\s*\|/),
    ),
  ),
  // A computed first argument may start with `|`: then these run a command (URI.open falls back to
  // Kernel#open for strings that are not URLs before Ruby 3.0). File.open / File.read do not.
  row(
    'rb.open-dynamic',
    RB,
    'critical',
    'shell_execution',
    'Kernel#open or IO read/write of a computed path (a leading | runs a command)',
    call(
      ['Kernel.open', 'URI.open', 'IO.read', 'IO.binread', 'IO.readlines', 'IO.write', 'IO.binwrite', 'IO.foreach'],
      // A computed path whose first character is constant and not `|` (`"prefix_#{x}"`,
      // `'dir/' + x`) is a file name: only a leading `|` runs a command.
      all(nonConstantArg(0), not(argTextMatches(0, RB_CONSTANT_FIRST_CHAR))),
    ),
  ),
  row(
    'rb.eval',
    RB,
    'critical',
    'dynamic_code_execution',
    'Dynamic code execution of a string',
    call(
      [
        'Kernel.eval',
        '*.instance_eval',
        '*.class_eval',
        '*.module_eval',
        'binding.eval',
        'Kernel.binding().eval',
        'TOPLEVEL_BINDING.eval',
      ],
      evaluatesUnsafeCode(0),
    ),
  ),
  // `obj.send(name, …)` with a computed name reaches eval, system and the rest (send ignores
  // visibility); a name with a constant prefix no such method has is constrained.
  row(
    'rb.dynamic-send',
    RB,
    'critical',
    'dynamic_code_execution',
    'Method called by a computed name (send reaches eval, system and every private Kernel method)',
    call(['Kernel.send(dynamic)'], dynamicMethodName(0)),
  ),
  // A block argument made from request input (`Kernel.tap(&params[:m].to_sym)`) calls the public
  // method the request names: on Kernel that is exit!, fork, system (session 12).
  row(
    'rb.block-method-from-input',
    RB,
    'critical',
    'dynamic_code_execution',
    'Method chosen by request input through a block argument (Symbol#to_proc calls any public method)',
    call(['Kernel.public_send(block)'], inputArg(0)),
  ),
  // A constant looked up by a computed name reaches any class (unsafe reflection: `.new`, class
  // methods); a class that defines its own const_get is the file's own method (`C.const_get(own)`).
  row(
    'rb.const-get',
    RB,
    'critical',
    'dynamic_code_execution',
    'Constant looked up by a computed name (any class: unsafe reflection)',
    call(['Kernel.const_get', '*.const_get', '*#const_get', '*.qualified_const_get'], nonConstantArg(0)),
  ),
  // Rails' constantize on a value the snippet cannot read reaches any class (brakeman's unsafe
  // reflection, a Remote Code Execution warning); a constant string receiver is not matched.
  row(
    'rb.constantize',
    RB,
    'critical',
    'dynamic_code_execution',
    'Class looked up by a computed name through constantize (any class: unsafe reflection)',
    call(['*.constantize', '*.safe_constantize']),
  ),
  // `obj.method(name)` with a computed name is a method object of any method (Kernel#system
  // included), called next; `name.to_sym.to_proc` is one too (`.call(Kernel)` runs it).
  row(
    'rb.method-object-dynamic',
    RB,
    'critical',
    'dynamic_code_execution',
    'Method object taken by a computed name (reaches system, eval and every Kernel method)',
    call(['*.method', 'Kernel.method', '*.public_method', '*.instance_method'], dynamicMethodName(0)),
  ),
  row(
    'rb.symbol-proc-dynamic',
    RB,
    'critical',
    'dynamic_code_execution',
    'Proc of a method named at run time (to_sym.to_proc: calls that method on any receiver)',
    call(['*.to_sym().to_proc', '*.intern().to_proc']),
  ),
  row(
    'rb.eval-constant',
    RB,
    'low',
    'dynamic_code_execution',
    'Evaluation of a constant code string (scanned: no critical finding inside)',
    call(['Kernel.eval', '*.instance_eval', '*.class_eval', '*.module_eval'], evaluatesConstantCode(0)),
  ),
  // ActiveJob::Serializers.deserialize instantiates the serializer class the hash names.
  row(
    'rb.activejob-deserialize',
    RB,
    'critical',
    'unsafe_deserialization',
    'ActiveJob argument deserialization of a computed value (instantiates the class it names)',
    call(['ActiveJob.Serializers.deserialize', 'ActiveJob.Arguments.deserialize'], nonConstantArg(0)),
  ),
  row(
    'rb.marshal',
    RB,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization through Marshal',
    // `Marshal.load(Marshal.dump(x))` is a deep copy of an object the program already holds.
    call(['Marshal.load', 'Marshal.restore'], not(argValuesAllIn(0, ['Marshal.dump()']))),
  ),
  row(
    'rb.yaml-unsafe',
    RB,
    'critical',
    'unsafe_deserialization',
    'Unsafe YAML loading',
    call(['YAML.unsafe_load', 'Psych.unsafe_load', 'YAML.unsafe_load_file', 'Psych.unsafe_load_file']),
  ),
  row(
    'rb.yaml-load',
    RB,
    'critical',
    'unsafe_deserialization',
    'YAML.load (arbitrary objects before Psych 4; the Ruby version is not known here)',
    call(['YAML.load', 'Psych.load', 'YAML.load_file', 'Psych.load_file', 'YAML.load_stream', 'Psych.load_stream']),
  ),
  row(
    'rb.yaml-load-documents',
    RB,
    'critical',
    'unsafe_deserialization',
    'YAML.load_documents (arbitrary objects before Psych 4)',
    call(['YAML.load_documents', 'Psych.load_documents']),
  ),
  // Oj's default mode (:object) and CSV.load (Marshal-like column conversions) build arbitrary objects.
  row(
    'rb.oj-load',
    RB,
    'critical',
    'unsafe_deserialization',
    'Oj load in object mode (the default) builds arbitrary objects',
    call(
      ['Oj.load', 'Oj.load_file'],
      not(
        any(
          argTextMatches(1, /mode\s*(?::|=>)\s*:(?:strict|null|compat|json|rails|custom|wab)\b/),
          rubyLocalHashMode(1, OJ_SAFE_MODES),
        ),
      ),
    ),
  ),
  row(
    'rb.oj-object-load',
    RB,
    'critical',
    'unsafe_deserialization',
    'Oj.object_load builds arbitrary objects whatever the mode',
    call(['Oj.object_load']),
  ),
  // JSON.load / restore create objects of the classes the document names when create_additions is on (their default).
  row(
    'rb.json-load',
    RB,
    'critical',
    'unsafe_deserialization',
    'JSON.load (creates objects of the classes the data names; JSON.parse does not)',
    call(['JSON.load', 'JSON.restore', 'JSON.unsafe_load']),
  ),
  // load / require of a path from request input runs that Ruby file.
  row(
    'rb.load-input',
    RB,
    'critical',
    'dynamic_code_execution',
    'Ruby file loaded from a path read from request or program input (runs its code)',
    call(['Kernel.load', 'Kernel.require', 'Kernel.require_relative', 'Kernel.autoload'], inputArg(0)),
  ),
  row(
    'rb.json-create-additions',
    RB,
    'critical',
    'unsafe_deserialization',
    'JSON.parse with create_additions: true (creates objects of the classes the data names)',
    call(
      ['JSON.parse', 'JSON.parse!', 'Oj.compat_load', 'Oj.load'],
      argTextMatches(
        1,
        /\bcreate_additions:\s*true\b|:create_additions\s*=>\s*true\b|["']create_additions["']\s*=>\s*true\b/,
      ),
    ),
  ),
  // A template compiled from request input runs its Ruby (server-side template injection).
  row(
    'rb.erb-input',
    RB,
    'critical',
    'dynamic_code_execution',
    'ERB / Erubi template compiled from request or program input (runs its Ruby code)',
    call(['ERB.new', 'Erubi::Engine.new', 'Erubi.Engine.new', 'Erubis::Eruby.new', 'Erubis.Eruby.new'], inputArg(0)),
  ),
  row(
    'rb.ox-object',
    RB,
    'critical',
    'unsafe_deserialization',
    'Ox in object mode builds arbitrary objects',
    call(['Ox.parse_obj']),
  ),
  row(
    'rb.ox-load-object',
    RB,
    'critical',
    'unsafe_deserialization',
    'Ox.load in object mode builds arbitrary objects',
    call(['Ox.load'], argTextMatches(1, /mode\s*(?::|=>)\s*:object\b/)),
  ),
  row(
    'rb.from-trusted-xml',
    RB,
    'critical',
    'unsafe_deserialization',
    'Hash.from_trusted_xml (elements typed yaml are loaded as YAML)',
    call(['Hash.from_trusted_xml']),
  ),
  row(
    'rb.plist-marshal',
    RB,
    'critical',
    'unsafe_deserialization',
    'Plist.parse_xml (Marshal-loads data elements unless marshal: false)',
    call(['Plist.parse_xml'], not(argTextMatches(1, /marshal\s*(?::|=>)\s*false\b/))),
  ),
  // A YAML node tree is harmless until to_ruby builds the objects it names (before Psych 4).
  row(
    'rb.yaml-to-ruby',
    RB,
    'critical',
    'unsafe_deserialization',
    'YAML node tree converted to objects (to_ruby)',
    call([
      'YAML.parse().to_ruby',
      'Psych.parse().to_ruby',
      'YAML.parse_stream().to_ruby',
      'Psych.parse_stream().to_ruby',
      'YAML.parse_file().to_ruby',
      'Psych.parse_file().to_ruby',
      'YAML.parse_documents().to_ruby',
      'Psych.parse_documents().to_ruby',
      // Session 16: `transform` is Psych::Nodes::Node's alias of to_ruby.
      'YAML.parse().transform',
      'Psych.parse().transform',
      'YAML.parse_stream().transform',
      'Psych.parse_stream().transform',
      'YAML.parse_file().transform',
      'Psych.parse_file().transform',
    ]),
  ),
  // Session 16 (brakeman's `YAML.parse_stream` RCE warning): a stream's documents reach to_ruby
  // through a block parameter or the stream's children, which the scanner does not follow; a
  // stream parsed from text built at run time fails closed.
  row(
    'rb.yaml-parse-stream',
    RB,
    'critical',
    'unsafe_deserialization',
    'YAML stream parsed from computed text (its document nodes build objects on to_ruby, not followed here: fail closed)',
    call(['YAML.parse_stream', 'Psych.parse_stream'], nonConstantArg(0)),
  ),
  row(
    'rb.terrapin',
    RB,
    'critical',
    'shell_execution',
    'Shell command line built through Terrapin / Cocaine',
    call(['Terrapin.CommandLine.new', 'Cocaine.CommandLine.new']),
  ),
  row(
    'rb.csv-load',
    RB,
    'critical',
    'unsafe_deserialization',
    'CSV.load (instantiates the classes the data names)',
    call(['CSV.load']),
  ),
  row(
    'rb.iseq',
    RB,
    'critical',
    'dynamic_code_execution',
    'Ruby VM instruction sequence compiled, loaded or run (runs arbitrary code)',
    // Session 15: the sequence's own eval too, where the code runs (one row: a chained
    // `compile(src).eval` is one finding on its line).
    call([
      'RubyVM.InstructionSequence.*',
      'RubyVM.InstructionSequence.*().eval',
      'RubyVM.InstructionSequence.*().eval_with_binding',
    ]),
  ),
  row(
    'rb.posix-spawn',
    RB,
    'critical',
    'shell_execution',
    'Process execution through posix-spawn',
    call(['POSIX.Spawn.*', 'POSIX.Spawn.Child.new', 'POSIX.Spawn.Child.build']),
  ),
  row(
    'rb.deserialization-family-unclassified',
    RB,
    'critical',
    'unsafe_deserialization',
    FAMILY_NOTE,
    unclassified(
      ['Marshal.*', 'Oj.*'],
      [
        'Marshal.dump',
        'Oj.dump',
        'Oj.generate',
        'Oj.to_json',
        'Oj.mimic_JSON',
        'Oj.default_options',
        'Oj.default_options=',
        'Oj.safe_load',
        'Oj.strict_load',
        'Oj.compat_load',
        'Oj.to_file',
        'Oj.to_stream',
        'Oj.optimize_rails',
        'Oj.register_odd',
      ],
    ),
  ),
  // YAML (Psych): the loaders have rows; node trees (parse*) are harmless until to_ruby, which has
  // a row; any other member (`YAML.parse_documents`, Syck's, absent from Psych; `Psych::Visitors`)
  // fails closed.
  row(
    'rb.yaml-family-unclassified',
    RB,
    'critical',
    'unsafe_deserialization',
    FAMILY_NOTE,
    unclassified(
      ['YAML.*', 'Psych.*'],
      [
        '*.dump',
        '*.dump_stream',
        '*.safe_dump',
        '*.safe_load',
        '*.safe_load_file',
        '*.parse',
        '*.parse_file',
        '*.parse_stream',
        '*.parser',
        '*.to_json',
        '*.add_tag',
        '*.add_domain_type',
        '*.libyaml_version',
        '*.VERSION',
        '*.LIBYAML_VERSION',
        '*.Nodes.*',
        '*.SyntaxError',
        '*.Exception',
        '*.DisallowedClass',
        '*.BadAlias',
        '*.Emitter',
        '*.Handler',
        '*.TreeBuilder',
        '*.Stream',
      ],
    ),
  ),
  row(
    'rb.process-family-unclassified',
    RB,
    'critical',
    'shell_execution',
    FAMILY_NOTE,
    unclassified(['Open3.*', 'PTY.*', 'POSIX.Spawn.*'], ['PTY.open', 'PTY.check']),
  ),
  row(
    'rb.weak-password-hash',
    RB,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(
      ['Digest.MD5.*', 'Digest.SHA1.*', 'OpenSSL.Digest.MD5.*', 'OpenSSL.Digest.SHA1.*'],
      passwordContext(),
      PASSWORD_HINT,
    ),
  ),
  row(
    'rb.sql',
    RB,
    'high',
    'sql_injection',
    'SQL built from run-time values passed to a query call',
    call(
      methods('execute', 'exec_query', 'find_by_sql', 'select_all', 'select_one', 'select_value', 'query', 'exec'),
      dynamicSql([0]),
      SQL_HINT,
    ),
  ),
  row(
    'rb.sql-fragment',
    RB,
    'high',
    'sql_injection',
    'Interpolated SQL fragment passed to a query builder',
    call(methods('where', 'order', 'having', 'group', 'joins', 'pluck', 'from'), dynamicSql([0], false)),
  ),
  row(
    'rb.tls-off',
    RB,
    'high',
    'insecure_tls',
    'TLS certificate verification disabled (VERIFY_NONE)',
    syntax('VERIFY_NONE'),
  ),
  row(
    'rb.file-delete',
    RB,
    'medium',
    'file_deletion',
    'File or directory deletion',
    call([
      'FileUtils.rm',
      'FileUtils.rm_r',
      'FileUtils.rm_rf',
      'FileUtils.rm_f',
      'FileUtils.remove_dir',
      'FileUtils.remove_entry',
      'FileUtils.remove_entry_secure',
      'File.delete',
      'File.unlink',
      'Dir.rmdir',
      'Dir.delete',
    ]),
  ),
  row(
    'rb.chmod-world',
    RB,
    'medium',
    'insecure_permissions',
    'World-writable file mode',
    call(['File.chmod', 'FileUtils.chmod', 'FileUtils.chmod_R'], worldWritableMode(0)),
  ),
  row(
    'rb.socket',
    RB,
    'low',
    'raw_socket',
    'Raw network socket',
    call(['TCPSocket.new', 'TCPSocket.open', 'UDPSocket.new', 'Socket.new', 'Socket.tcp', 'TCPServer.new']),
  ),
  row(
    'rb.http',
    RB,
    'low',
    'outbound_http',
    'Outbound HTTP request',
    call(['Net.HTTP.*', 'URI.open', 'OpenURI.open_uri', 'HTTParty.*', 'Faraday.*', 'RestClient.*', 'Excon.*']),
  ),

  // ── PHP ─────────────────────────────────────────────────────────────────────────────────
  row(
    'php.process',
    PHP,
    'critical',
    'shell_execution',
    'Shell or process execution',
    call(['exec', 'shell_exec', 'system', 'passthru', 'popen', 'proc_open', 'pcntl_exec', 'expect_popen']),
  ),
  row('php.backticks', PHP, 'critical', 'shell_execution', 'Shell execution (backticks)', syntax('subshell')),
  row(
    'php.eval',
    PHP,
    'critical',
    'dynamic_code_execution',
    'Dynamic code execution (eval)',
    call(['eval'], evaluatesUnsafeCode(0)),
  ),
  row(
    'php.eval-constant',
    PHP,
    'low',
    'dynamic_code_execution',
    'Evaluation of a constant code string (scanned: no critical finding inside)',
    call(['eval', 'assert'], evaluatesConstantCode(0)),
  ),
  row(
    'php.assert-string',
    PHP,
    'critical',
    'dynamic_code_execution',
    'assert() of a string (evaluated as code)',
    call(['assert'], all(stringArg(0), evaluatesUnsafeCode(0))),
  ),
  row(
    'php.create-function',
    PHP,
    'critical',
    'dynamic_code_execution',
    'create_function (eval of its body)',
    call(['create_function']),
  ),
  row(
    'php.preg-e',
    PHP,
    'critical',
    'dynamic_code_execution',
    'preg_replace with the /e modifier (eval of the replacement)',
    call(['preg_replace'], constantArgMatches(0, /^\s*([^\w\s\\])[\s\S]*\1[a-zA-Z]*e[a-zA-Z]*\s*$/)),
  ),
  row(
    'php.mb-ereg-e',
    PHP,
    'critical',
    'dynamic_code_execution',
    'mb_ereg_replace with the e option (eval of the replacement)',
    call(['mb_ereg_replace', 'mb_eregi_replace'], any(constantArgMatches(3, /e/), nonConstantArg(3))),
  ),
  // Before PHP 8 assert() evaluates a string argument as code; a variable, array element or
  // property may hold one (the PHP version is not known: fail closed). A comparison or other
  // boolean expression is not a string.
  row(
    'php.assert-variable',
    PHP,
    'critical',
    'dynamic_code_execution',
    'assert() of a value that may be a string (evaluated as code before PHP 8)',
    call(['assert'], all(nonConstantArg(0), not(stringArg(0)), argTextMatches(0, /^\$\w+(?:\[[^\]]*\]|->\w+)*$/))),
  ),
  row(
    'php.dynamic-call',
    PHP,
    'high',
    'dynamic_call',
    'Function called through a name computed at run time',
    syntax('dynamic_function_call'),
  ),
  row(
    'php.unserialize',
    PHP,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (unserialize)',
    call(
      ['unserialize'],
      all(
        not(argTextMatches(1, /['"]allowed_classes['"]\s*=>\s*false/i)),
        // Session 16: a literal with no object or reference entry (analyzers/payload-php-serialize.ts).
        not(inertLiteralPayload(0, 'php-serialized', inertPhpSerializedLiteral)),
      ),
    ),
  ),
  // Session 15: WordPress's maybe_unserialize unserializes whatever looks serialized, and takes no
  // options (a second argument is ignored).
  row(
    'php.maybe-unserialize',
    PHP,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (WordPress maybe_unserialize)',
    call(['maybe_unserialize']),
  ),
  // Session 13: PECL yaml unserializes `!php/object` nodes unless yaml.decode_php is off (an ini
  // setting a snippet cannot show; the manual warns against untrusted input): input-fed, fail closed.
  row(
    'php.yaml-parse-input',
    PHP,
    'critical',
    'unsafe_deserialization',
    'yaml_parse of request or program input (!php/object nodes are unserialized unless yaml.decode_php is off)',
    call(['yaml_parse', 'yaml_parse_file', 'yaml_parse_url'], inputArg(0)),
  ),
  // Session 13: a pattern from input can carry the /e modifier (its replacement evaluated as code
  // before PHP 7): fail closed.
  row(
    'php.preg-pattern-input',
    PHP,
    'critical',
    'dynamic_code_execution',
    'preg_replace with a pattern from request input (the /e modifier evaluates the replacement)',
    call(['preg_replace', 'preg_filter'], inputArg(0)),
  ),
  // igbinary and msgpack are drop-in replacements of unserialize: they instantiate the classes the
  // data names and run their __wakeup / __unserialize (msgpack's default php_only mode).
  row(
    'php.unserialize-extension',
    PHP,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (igbinary / msgpack, like unserialize)',
    call(['igbinary_unserialize', 'msgpack_unpack', 'msgpack_unserialize']),
  ),
  // parse_str() with one argument (before PHP 8) sets variables from the string, like extract().
  row(
    'php.parse-str-globals',
    PHP,
    'critical',
    'dynamic_code_execution',
    'parse_str() without a result array (the request chooses and overwrites local variables)',
    call(['parse_str'], not(hasArg(1))),
  ),
  // extract() of request data overwrites any local variable (including ones later run or included).
  row(
    'php.extract-input',
    PHP,
    'critical',
    'dynamic_code_execution',
    'extract() of request data (the request chooses and overwrites local variables)',
    call(
      ['extract', 'import_request_variables'],
      any(
        argTextMatches(0, /\$_(?:GET|POST|REQUEST|COOKIE|FILES|SERVER)\b|\$HTTP_[A-Z]+_VARS\b|php:\/\/input/),
        inputArg(0),
      ),
    ),
  ),
  // A function or class the request names is any function or class (`$_GET['f']($_GET['a'])`
  // runs system; `new $cls($arg)` and reflection reach every class's constructor and gadget).
  row(
    'php.callee-from-input',
    PHP,
    'critical',
    'dynamic_code_execution',
    'Function or class chosen by request input (any function or class can be reached)',
    call(
      ['$callee()', 'new $class', 'ReflectionClass', 'ReflectionFunction', 'ReflectionMethod', 'ReflectionObject'],
      inputArg(0),
    ),
  ),
  // Session 16 (red team): a function whose name is decoded at run time from constants
  // (`strrev('metsys')`, `base64_decode('c3lzdGVt')`): the name is hidden on purpose (fail closed).
  row(
    'php.callee-decoded',
    PHP,
    'critical',
    'dynamic_code_execution',
    'Function called through a name decoded at run time (the name is hidden; fail closed)',
    call(['$callee()'], argValueMatches(0, PHP_DECODED_NAME)),
  ),
  // `include 'data://text/plain;base64,' . $x`: the stream's text runs as PHP code.
  row(
    'php.include-code-stream',
    PHP,
    'critical',
    'dynamic_code_execution',
    'include/require of a data: or php://input stream built at run time (its text runs as code)',
    syntax('include_code_stream'),
  ),
  // A phar:// path built at run time given to a file function unserializes the archive's
  // metadata (phar deserialization), whatever the function does with the file.
  row(
    'php.phar-path',
    PHP,
    'critical',
    'unsafe_deserialization',
    'phar:// path built at run time given to a file function (the archive metadata is unserialized)',
    call(
      [
        'file_exists',
        'is_file',
        'is_dir',
        'fopen',
        'file_get_contents',
        'file',
        'filesize',
        'filemtime',
        'stat',
        'is_readable',
        'is_writable',
        'copy',
        'unlink',
        'getimagesize',
        'md5_file',
        'sha1_file',
        'hash_file',
        'parse_ini_file',
        'exif_read_data',
        'fileowner',
        'touch',
        'readfile',
      ],
      all(argTextMatches(0, /^["']phar:\/\//i), nonConstantArg(0)),
    ),
  ),
  row(
    'php.callback-from-input',
    PHP,
    'critical',
    'dynamic_code_execution',
    'Callback named by request input (any function can be called)',
    call(
      [
        'call_user_func',
        'call_user_func_array',
        'forward_static_call',
        'forward_static_call_array',
        'array_map',
        'register_shutdown_function',
        'register_tick_function',
        // Session 16 (red team).
        'ob_start',
        'set_error_handler',
        'set_exception_handler',
        'spl_autoload_register',
        'header_register_callback',
      ],
      inputArg(0),
    ),
  ),
  row(
    'php.callback-from-input-second',
    PHP,
    'critical',
    'dynamic_code_execution',
    'Callback named by request input (any function can be called)',
    call(
      [
        'array_filter',
        'array_walk',
        'array_walk_recursive',
        'array_reduce',
        'usort',
        'uasort',
        'uksort',
        'iterator_apply',
        'preg_replace_callback',
        'mb_ereg_replace_callback',
      ],
      inputArg(1),
    ),
  ),
  row(
    'php.weak-password-hash',
    PHP,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(['md5', 'sha1'], passwordContext(), PASSWORD_HINT),
  ),
  row(
    'php.weak-password-hash-hash',
    PHP,
    'critical',
    'weak_password_hash',
    'Weak hash (MD5/SHA-1) used for a password',
    call(['hash', 'hash_init'], all(constantArgIn(0, ['md5', 'sha1']), passwordContext()), PASSWORD_HINT),
  ),
  row(
    'php.include-dynamic',
    PHP,
    'high',
    'file_inclusion',
    'include/require of a path computed at run time',
    syntax('dynamic_include'),
  ),
  row(
    'php.sql',
    PHP,
    'high',
    'sql_injection',
    'SQL statement built from run-time values passed to a query call',
    call(
      [
        'mysqli_query',
        'mysql_query',
        'pg_query',
        'sqlite_query',
        'mysqli_multi_query',
        'mysqli_real_query',
        ...methods(
          'query',
          'exec',
          'prepare',
          'multi_query',
          'real_query',
          'execute',
          'select',
          'statement',
          'unprepared',
          'raw',
        ),
      ],
      dynamicSql(),
      SQL_HINT,
    ),
  ),
  row(
    'php.tls-off',
    PHP,
    'high',
    'insecure_tls',
    'TLS certificate verification disabled (cURL)',
    call(['curl_setopt'], all(argTextMatches(1, /CURLOPT_SSL_VERIFY(?:PEER|HOST)/), argFalse(2))),
  ),
  row('php.file-delete', PHP, 'medium', 'file_deletion', 'File or directory deletion', call(['unlink', 'rmdir'])),
  row(
    'php.chmod-world',
    PHP,
    'medium',
    'insecure_permissions',
    'World-writable file mode',
    call(['chmod', 'mkdir'], worldWritableMode(1)),
  ),
  row(
    'php.socket',
    PHP,
    'low',
    'raw_socket',
    'Raw network socket',
    call(['fsockopen', 'pfsockopen', 'socket_create', 'stream_socket_client', 'stream_socket_server']),
  ),
  row('php.http', PHP, 'low', 'outbound_http', 'Outbound HTTP request', call(['curl_exec', 'curl_multi_exec'])),

  // ── Bash ────────────────────────────────────────────────────────────────────────────────
  row(
    'sh.download-exec',
    SH,
    'critical',
    'shell_execution',
    'Downloaded content executed by a shell or interpreter',
    syntax('download_exec'),
  ),
  row('sh.eval', SH, 'critical', 'dynamic_code_execution', 'eval of shell text', syntax('eval')),
  // `sh -c "$x"`, `python3 -c "$code"`, `perl -e "$p"`: an interpreter given code it cannot read.
  row(
    'sh.interpreter-code',
    SH,
    'critical',
    'dynamic_code_execution',
    'Shell or interpreter given code built at run time (-c / -e)',
    syntax('interpreter_code'),
  ),
  row('sh.reverse-shell', SH, 'critical', 'shell_execution', 'Reverse shell', syntax('reverse_shell')),
  // `$1 …`, `read c; $c`, `c=$1; "$c"`: the command itself is the caller's text.
  row(
    'sh.computed-command',
    SH,
    'critical',
    'shell_execution',
    "Command named by the script's arguments or read input",
    syntax('computed_command'),
  ),
  // `source "$1"`, `. "$f"`: a file named at run time runs in this shell.
  row(
    'sh.source-computed',
    SH,
    'critical',
    'dynamic_code_execution',
    'File named at run time sourced into the shell (runs its code)',
    syntax('source_computed'),
  ),
  row(
    'sh.insecure-download',
    SH,
    'high',
    'insecure_tls',
    'Download with TLS verification disabled',
    syntax('insecure_download'),
  ),
  row(
    'sh.rm-root',
    SH,
    'high',
    'file_deletion',
    'Recursive forced deletion of a root or home directory',
    syntax('rm_rf_root'),
  ),
  row('sh.rm-rf', SH, 'medium', 'file_deletion', 'Recursive forced deletion (rm -rf)', syntax('rm_rf')),
  row(
    'sh.chmod-world',
    SH,
    'medium',
    'insecure_permissions',
    'World-writable permissions (chmod 777 / o+w)',
    syntax('chmod_world_writable'),
  ),
  row('sh.socket', SH, 'low', 'raw_socket', 'Raw network connection', syntax('raw_socket')),
  row('sh.download', SH, 'low', 'outbound_http', 'Outbound download', syntax('download')),

  // ── C# (session 13) ─────────────────────────────────────────────────────────────────────
  // Names: `Namespace.Type.Method` for static calls, `Namespace.Type#Method` on an instance,
  // `Namespace.Type` for a constructor, `T#set_P` for a property write (`x.P = v` or the object
  // initialiser `new T { P = v }`). Process execution blocks whatever its argument (the contract).
  row(
    'cs.process',
    CS,
    'critical',
    'shell_execution',
    'Process execution',
    call([
      'System.Diagnostics.Process.Start',
      'System.Diagnostics.Process#Start',
      'Microsoft.VisualBasic.Interaction.Shell',
      'CliWrap.Cli.Wrap',
    ]),
  ),
  // Session 16 (red team): a process or formatter type looked up by a constant name
  // (`Type.GetType("System.Diagnostics.Process").GetMethod("Start").Invoke(…)`) fails closed.
  row(
    'cs.reflective-family',
    CS,
    'critical',
    'dynamic_code_execution',
    'Process or deserializer type reached by reflection (fail closed)',
    call(
      ['System.Type.GetType', 'System.Reflection.Assembly#GetType', '*.GetType', '*#GetType'],
      constantArgMatches(0, CS_REFLECTED_FAMILY_TYPE),
    ),
  ),
  // `typeof(Process).GetMethod("Start")`: the process type's methods reached by reflection.
  row(
    'cs.reflective-family-method',
    CS,
    'critical',
    'dynamic_code_execution',
    'Process or deserializer type reached by reflection (fail closed)',
    call(
      ['*GetMethod', '*GetMethods', '*InvokeMember'],
      undefined,
      /typeof\s*\(\s*(?:System\.Diagnostics\.)?Process\s*\)|typeof\s*\(\s*(?:[\w.]+\.)?(?:BinaryFormatter|LosFormatter|ObjectStateFormatter|SoapFormatter|NetDataContractSerializer)\s*\)/,
    ),
  ),
  // XAML readers build any object the markup names (ObjectDataProvider runs a method).
  row(
    'cs.xaml-load',
    CS,
    'critical',
    'unsafe_deserialization',
    'XAML parsed from a value the snippet does not show (the markup chooses the objects it creates)',
    call(
      [
        'System.Windows.Markup.XamlReader.Parse',
        'System.Windows.Markup.XamlReader.Load',
        'System.Xaml.XamlServices.Parse',
        'System.Xaml.XamlServices.Load',
      ],
      nonConstantArg(0),
    ),
  ),
  row(
    'cs.process-start-info',
    CS,
    'critical',
    'shell_execution',
    'Process command, arguments or working directory set on a ProcessStartInfo',
    call(
      [
        'System.Diagnostics.ProcessStartInfo',
        ...['FileName', 'Arguments', 'WorkingDirectory'].flatMap((p) => [
          `System.Diagnostics.ProcessStartInfo#set_${p}`,
          `System.Diagnostics.Process#StartInfo.set_${p}`,
        ]),
        'System.Diagnostics.ProcessStartInfo#ArgumentList.Add',
        'System.Diagnostics.Process#StartInfo.ArgumentList.Add',
      ],
      hasArg(0),
    ),
  ),
  // Compiling source text and running it: constant source is scanned itself (nested scan).
  row(
    'cs.compile-source',
    CS,
    'critical',
    'dynamic_code_execution',
    'C# or VB source compiled at run time (CodeDom)',
    call(
      methods('CompileAssemblyFromSource'),
      any(evaluatesUnsafeCode(1), evaluatesUnsafeCode(2), evaluatesUnsafeCode(3)),
    ),
  ),
  row(
    'cs.compile-file',
    CS,
    'critical',
    'dynamic_code_execution',
    'Source files or a code model compiled at run time from a computed name (CodeDom)',
    call(methods('CompileAssemblyFromFile', 'CompileAssemblyFromDom'), nonConstantArg(1)),
  ),
  row(
    'cs.script-eval',
    CS,
    'critical',
    'dynamic_code_execution',
    'C# script evaluated at run time (Roslyn scripting)',
    call(
      [
        'Microsoft.CodeAnalysis.CSharp.Scripting.CSharpScript.EvaluateAsync',
        'Microsoft.CodeAnalysis.CSharp.Scripting.CSharpScript.RunAsync',
        'Microsoft.CodeAnalysis.CSharp.Scripting.CSharpScript.Create',
        '*#ContinueWithAsync',
      ],
      evaluatesUnsafeCode(0),
    ),
  ),
  row(
    'cs.assembly-load',
    CS,
    'critical',
    'dynamic_code_execution',
    'Assembly loaded from computed bytes or a computed path (its code runs)',
    call(
      [
        'System.Reflection.Assembly.Load',
        'System.Reflection.Assembly.LoadFrom',
        'System.Reflection.Assembly.LoadFile',
        'System.Reflection.Assembly.UnsafeLoadFrom',
        'System.AppDomain#Load',
        'System.AppDomain.CurrentDomain.Load',
        'System.Runtime.Loader.AssemblyLoadContext#LoadFromStream',
        'System.Runtime.Loader.AssemblyLoadContext#LoadFromAssemblyPath',
        'System.Runtime.Loader.AssemblyLoadContext.Default.LoadFromStream',
        'System.Runtime.Loader.AssemblyLoadContext.Default.LoadFromAssemblyPath',
      ],
      nonConstantArg(0),
    ),
  ),
  row(
    'cs.type-from-input',
    CS,
    'critical',
    'dynamic_code_execution',
    'Type chosen by request input (unsafe reflection: its initialiser and constructors run)',
    call(
      [
        'System.Type.GetType',
        'System.Activator.CreateInstance',
        'System.Activator.CreateInstanceFrom',
        'System.Reflection.Assembly#GetType',
        'System.Reflection.Assembly#CreateInstance',
        'System.AppDomain#CreateInstance*',
        'System.AppDomain.CurrentDomain.CreateInstance*',
        'System.Type#InvokeMember',
      ],
      csInputArg(0),
    ),
  ),
  row(
    'cs.native-load',
    CS,
    'critical',
    'dynamic_code_execution',
    'Native library loaded from a computed path (runs its code)',
    call(
      [
        'System.Runtime.InteropServices.NativeLibrary.Load',
        'System.Runtime.InteropServices.NativeLibrary.TryLoad',
        ...methods('LoadLibrary', 'LoadLibraryA', 'LoadLibraryW', 'LoadLibraryEx', 'LoadLibraryExA', 'LoadLibraryExW'),
      ],
      nonConstantArg(0),
    ),
  ),
  // Formatters that instantiate any type the payload names (Microsoft: "BinaryFormatter is dangerous").
  row(
    'cs.deserialize',
    CS,
    'critical',
    'unsafe_deserialization',
    'Unsafe deserialization (the payload chooses the types it creates)',
    call(
      [
        ...['Deserialize', 'UnsafeDeserialize', 'UnsafeDeserializeMethodResponse'].map(
          (m) => `System.Runtime.Serialization.Formatters.Binary.BinaryFormatter#${m}`,
        ),
        'System.Runtime.Serialization.Formatters.Soap.SoapFormatter#Deserialize',
        'System.Runtime.Serialization.NetDataContractSerializer#Deserialize',
        'System.Runtime.Serialization.NetDataContractSerializer#ReadObject',
        'System.Web.UI.LosFormatter#Deserialize',
        'System.Web.UI.ObjectStateFormatter#Deserialize',
        'System.Runtime.Serialization.IFormatter#Deserialize',
        'System.Web.Script.Serialization.JavaScriptSerializer(resolver)#Deserialize*',
        'System.Web.Script.Serialization.JavaScriptSerializer(resolver)#ConvertToType',
        // XmlSerializer / DataContractSerializer built for a type request input names (csharp.ts).
        'System.Xml.Serialization.XmlSerializer(input)#Deserialize',
        'System.Runtime.Serialization.DataContractSerializer(input)#ReadObject',
        'System.Runtime.Serialization.Json.DataContractJsonSerializer(input)#ReadObject',
      ],
      // A payload the snippet wrote itself (csharp.ts CONSTANT_DATA) chooses nothing.
      not(argValuesAllIn(0, ['csharp.constant-data'])),
    ),
  ),
  // Resource files hold BinaryFormatter payloads; a JavaScriptSerializer given a type resolver reads `__type`.
  row(
    'cs.deserialize-reader',
    CS,
    'critical',
    'unsafe_deserialization',
    'Resource reader or type-resolving serializer over computed input (deserializes any type)',
    call(
      [
        'System.Resources.ResourceReader',
        'System.Resources.ResXResourceReader',
        'System.Web.Script.Serialization.JavaScriptSerializer',
      ],
      all(hasArg(0), nonConstantArg(0)),
    ),
  ),
  // Session 14 (semgrep-rules' C# tests): fastJSON's ToObject honours `$type` in the payload;
  // FsPickler's serializers rebuild any type the payload names; .NET Remoting's
  // TypeFilterLevel.Full lets a remote caller send any serializable type.
  row(
    'cs.fastjson-to-object',
    CS,
    'critical',
    'unsafe_deserialization',
    "fastJSON ToObject (the payload's $type chooses the class it creates)",
    call(
      ['fastJSON.JSON.ToObject', 'fastJSON.JSON.ToObject*'],
      all(nonConstantArg(0), not(argValuesAllIn(0, ['csharp.constant-data']))),
    ),
  ),
  row(
    'cs.fspickler-deserialize',
    CS,
    'critical',
    'unsafe_deserialization',
    'FsPickler deserialization (the payload chooses the types it creates)',
    call([
      '*FsPickler.Create*Serializer()#Deserialize*',
      '*FsPickler.Create*Serializer()#UnPickle*',
      '*FsPickler.Create*Serializer().Deserialize*',
    ]),
  ),
  row(
    'cs.remoting-type-filter-full',
    CS,
    'critical',
    'unsafe_deserialization',
    '.NET Remoting TypeFilterLevel.Full (a remote caller sends any serializable type)',
    call(['*#set_TypeFilterLevel', '*.set_TypeFilterLevel'], argTextMatches(0, /(?:^|\.)\s*Full$|^2$/)),
  ),
  // Session 15: the same setting through a properties dictionary (csharp.ts remotingFacts), a
  // DataContractResolver subclass (it maps the payload's type names to types), and RazorEngine /
  // RazorLight templates (a template is C# compiled and run) from a value the snippet did not write.
  row(
    'cs.remoting-properties-type-filter-full',
    CS,
    'critical',
    'unsafe_deserialization',
    '.NET Remoting channel or sink provider whose properties set typeFilterLevel other than Low (a remote caller sends any serializable type)',
    syntax('cs:remoting-properties-type-filter-full'),
  ),
  row(
    'cs.data-contract-resolver',
    CS,
    'critical',
    'unsafe_deserialization',
    "DataContractResolver subclass (maps the payload's type names to types it creates)",
    syntax('cs:data-contract-resolver'),
  ),
  row(
    'cs.razor-template',
    CS,
    'critical',
    'dynamic_code_execution',
    'Razor template compiled from a computed string (a template is C# code)',
    call(
      [
        ...['Parse', 'ParseMany', 'Compile', 'CreateTemplate', 'CreateTemplates', 'GetTemplate'].map(
          (m) => `RazorEngine.Razor.${m}`,
        ),
        ...['RunCompile', 'Compile', 'AddTemplate'].flatMap((m) => [
          `RazorEngine.Engine.Razor.${m}`,
          `RazorEngine.Templating.IRazorEngineService#${m}`,
          `RazorEngine.Templating.RazorEngineService.Create().${m}`,
          `RazorEngine.Templating.ITemplateService#${m}`,
          `RazorEngine.Templating.TemplateService#${m}`,
        ]),
      ],
      nonConstantArg(0),
    ),
  ),
  row(
    'cs.razorlight-template',
    CS,
    'critical',
    'dynamic_code_execution',
    'RazorLight template compiled from a computed string (a template is C# code)',
    call(methods('CompileRenderStringAsync'), nonConstantArg(1)),
  ),
  // Json.NET: any TypeNameHandling but None lets `$type` in the payload choose the class.
  row(
    'cs.json-type-name-handling',
    CS,
    'critical',
    'unsafe_deserialization',
    'Json.NET TypeNameHandling other than None (the payload chooses the types it creates)',
    call(
      ['*#set_TypeNameHandling', '*.set_TypeNameHandling', '*#set_ItemTypeNameHandling'],
      not(argTextMatches(0, /^(?:(?:Newtonsoft\s*\.\s*Json\s*\.\s*)?TypeNameHandling\s*\.\s*None|0)$/)),
    ),
  ),
  row(
    'cs.deserialize-type-from-input',
    CS,
    'critical',
    'unsafe_deserialization',
    'Serializer whose type or known types come from request input',
    call(
      [
        'System.Xml.Serialization.XmlSerializer',
        'System.Runtime.Serialization.DataContractSerializer',
        'System.Runtime.Serialization.Json.DataContractJsonSerializer',
      ],
      any(csInputArg(0), csInputArg(1)),
    ),
  ),

  // Item 4 of issue 24 in C#: a member of these families no row classifies fails closed.
  row(
    'cs.process-family-unclassified',
    CS,
    'critical',
    'shell_execution',
    FAMILY_NOTE,
    unclassified(
      ['System.Diagnostics.Process#*', 'System.Diagnostics.Process.*'],
      [
        ...[
          'GetProcesses',
          'GetCurrentProcess',
          'GetProcessById',
          'GetProcessesByName',
          'EnterDebugMode',
          'LeaveDebugMode',
        ].map((m) => `System.Diagnostics.Process.${m}`),
        ...[
          'Kill',
          'WaitForExit',
          'WaitForExitAsync',
          'WaitForInputIdle',
          'Close',
          'CloseMainWindow',
          'Dispose',
          'Refresh',
          'BeginOutputReadLine',
          'BeginErrorReadLine',
          'CancelOutputRead',
          'CancelErrorRead',
          'ToString',
          'set_EnableRaisingEvents',
          'StandardOutput.*',
          'StandardError.*',
          'StandardInput.*',
          'StartInfo.set_RedirectStandard*',
          'StartInfo.set_UseShellExecute',
          'StartInfo.set_CreateNoWindow',
          'StartInfo.set_WindowStyle',
          'StartInfo.EnvironmentVariables.*',
          'StartInfo.Environment.*',
        ].map((m) => `System.Diagnostics.Process#${m}`),
      ],
    ),
  ),
  row(
    'cs.code-family-unclassified',
    CS,
    'critical',
    'dynamic_code_execution',
    FAMILY_NOTE,
    unclassified(['Microsoft.CodeAnalysis.CSharp.Scripting.CSharpScript.*', '*#CompileAssemblyFrom*'], []),
  ),
  row(
    'cs.deserialization-family-unclassified',
    CS,
    'critical',
    'unsafe_deserialization',
    FAMILY_NOTE,
    unclassified(
      [
        'System.Runtime.Serialization.Formatters.Binary.BinaryFormatter#*',
        'System.Runtime.Serialization.Formatters.Soap.SoapFormatter#*',
        'System.Runtime.Serialization.NetDataContractSerializer#*',
        'System.Web.UI.LosFormatter#*',
        'System.Web.UI.ObjectStateFormatter#*',
      ],
      [
        'System.Runtime.Serialization.Formatters.Binary.BinaryFormatter',
        'System.Runtime.Serialization.Formatters.Soap.SoapFormatter',
        'System.Runtime.Serialization.NetDataContractSerializer',
        'System.Web.UI.LosFormatter',
        'System.Web.UI.ObjectStateFormatter',
      ].flatMap((t) => ['Serialize', 'WriteObject', 'ToString', 'set_*'].map((m) => `${t}#${m}`)),
    ),
  ),

  // ── Hard-coded credentials (every language, on the text itself) ─────────────────────────
  ...SECRET_CHECKS.map((s) => row(`secret.${s.id}`, 'all', 'critical', 'hardcoded_credential', s.description, text(s))),
];

// ── Table identity (recorded in every proof) ──────────────────────────────────────────────

function describeMatcher(m: Matcher): Record<string, unknown> {
  if (m.on === 'text')
    return {
      on: 'text',
      pattern: m.secret.pattern.source,
      flags: m.secret.pattern.flags,
      validation: m.secret.validation,
    };
  if (m.on === 'call') {
    return {
      on: 'call',
      names: [...m.names],
      where: m.where?.spec ?? null,
      hint: m.hint?.source ?? null,
      ...(m.fallback ? { fallback: true, except: [...(m.except ?? [])] } : {}),
      ...(m.closed ? { closed: CLOSED_MODULES } : {}),
    };
  }
  return { on: m.on, names: [...m.names] };
}

/** sha256 over the canonical JSON of every row (predicates by their spec strings). */
export const RULES_SHA256: string = createHash('sha256')
  .update(
    canonicalJson(
      RULES.map((r) => ({
        id: r.id,
        languages: r.languages === 'all' ? 'all' : [...r.languages],
        severity: r.severity,
        type: r.type,
        description: r.description,
        match: describeMatcher(r.match),
      })),
    ),
  )
  .digest('hex');

// Row ids must be unique: a duplicate is a programming error caught at import time.
{
  const ids = new Set<string>();
  for (const r of RULES) {
    if (ids.has(r.id)) throw new Error(`duplicate code rule id ${r.id}`);
    ids.add(r.id);
  }
}
