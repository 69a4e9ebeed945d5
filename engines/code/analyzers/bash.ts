// Bash: commands are resolved through wrappers (sudo, env, command, builtin, exec, nohup,
// time, nice, timeout, xargs, doas, stdbuf), quoting, paths (`/bin/bash` → bash) and
// variables holding a constant command name (`c=eval; $c ...`). Reported: a download piped
// into a shell or interpreter (or handed to one through `<(...)`, `$(...)` or `<<<`), eval,
// reverse shells, insecure downloads, rm -rf, world-writable chmod, raw sockets, downloads,
// (session 12) a command or sourced file named by the script's arguments or `read` input
// (`$1`, `cmd=$1; $cmd`, `source "$f"`), and `xargs … sh -c` whose code is the input.
import type { Node } from 'web-tree-sitter';
import type { Fact } from '../facts.js';
import type { SyntaxView } from '../syntax.js';
import { type Analyzer, occurrences } from './base.js';

const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'lwp-download', 'lynx']);
const INTERPRETER =
  /^(?:sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh|busybox|python[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|php[\d.]*|pwsh|powershell|source|\.)$/;
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'timeout',
  'xargs',
  'stdbuf',
  'chroot',
  'su',
  // Session 16 (red team): `runuser -u u -- cmd`, `flock lockfile cmd` / `flock lockfile -c code`.
  'runuser',
  'flock',
]);
/** Options whose value is the code to run, per interpreter (a shell's `-e` is errexit, not code). */
function codeOption(interpreter: string, flag: string): boolean {
  if (/^(?:python|pwsh|powershell)/.test(interpreter)) return /^(?:-c|-Command)$/.test(flag);
  if (/^(?:perl|ruby|node)/.test(interpreter)) return /^(?:-[A-Za-z]*e|-E|--eval|-p)$/.test(flag);
  if (/^php/.test(interpreter)) return flag === '-r';
  return /^-[A-Za-z]*c$/.test(flag);
}
const NETCAT = new Set(['nc', 'ncat', 'netcat', 'socat', 'telnet']);
const INTERESTING = new Set([
  ...DOWNLOADERS,
  ...WRAPPERS,
  ...NETCAT,
  'eval',
  'rm',
  'chmod',
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'source',
  '.',
  'read',
  'awk',
  'gawk',
  'mawk',
  'nawk',
  'find',
  'trap',
  'printf',
]);
const AWK = new Set(['awk', 'gawk', 'mawk', 'nawk']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const ROOT_TARGETS =
  /^["']?(?:\/\*?|~\/?\*?|\$\{?HOME\}?\/?\*?|\/(?:home|etc|usr|var|boot|bin|sbin|lib|opt|root)\/?\*?)["']?$/;
/** Options of wrappers that take a value (the next word is not the command). */
const WRAPPER_VALUE_OPTS: Readonly<Record<string, RegExp>> = {
  sudo: /^-[ugCDhpRrTU]$/,
  doas: /^-[uC]$/,
  nice: /^-n$/,
  timeout: /^-[sk]$/,
  xargs: /^-[IdEeLlnPs]$/,
  stdbuf: /^-[ioe]$/,
  su: /^-[s]$/,
  runuser: /^-[ugs]$/,
  flock: /^-[wE]$/,
};
/** Wrappers whose `-c` / `--command` option is a command line run by a shell (`su -c "$1" user`). */
const SHELL_COMMAND_OPTION = new Set(['su', 'runuser', 'flock']);
/** Environment variables that name the user's shell (`"$SHELL" -c …`). */
const SHELL_VARIABLES: Readonly<Record<string, string>> = { SHELL: 'sh', BASH: 'bash' };
/** Files that are the standard input (`. /dev/stdin <<< "$1"` sources the here-string). */
const STDIN_FILES = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

interface Effective {
  name: string;
  args: Node[];
  argTexts: string[];
  /** Behind `xargs`: its -I replace string, or `true` when the input is appended to the arguments. */
  xargs?: string | true;
  /** The command word as written, when it was found behind wrappers (`sudo -u app "$1"`). */
  wrappedWord?: string;
}
/**
 * A word that is one expansion of a positional parameter (`$1`, `"${2}"`): the caller's text.
 * Not `"$@"`: a helper that runs its arguments (`run() { log "$*"; "$@"; }`) is ordinary script.
 */
const POSITIONAL = /^"?\$\{?[1-9]\}?"?$/;
/** One bare expansion of a variable (`$f`, `"${cmd}"`): its name. */
const ONE_VAR = /^"?\$\{?([A-Za-z_]\w*)\}?"?$/;
const FUNCTION_DEFINITION = new Set(['function_definition']);
/** Text that carries the script's arguments (`$1`, `${2:-x}`, `$@`, `$*`). */
const ARG_TEXT = /\$(?:\{?[1-9@*])/;

class BashAnalysis {
  private readonly facts: Fact[] = [];
  private readonly vars = new Map<string, Set<string>>();
  /** Variables assigned the script's arguments or `read` input (anything else stays unknown). */
  private readonly fromInput = new Set<string>();
  private readonly seen = new Set<string>();

  constructor(private readonly view: SyntaxView) {}

  /** Every syntax form is reported; the rule table decides which become findings. */
  run(): Fact[] {
    const v = this.view;
    const src = v.source;
    const nodes = v.ofType(v.root, ['command', 'pipeline', 'variable_assignment']);
    const types = nodes.map((n) => v.type(n));
    nodes.forEach((n, i) => {
      if (types[i] === 'variable_assignment') this.recordVariable(n);
    });
    nodes.forEach((n, i) => {
      if (types[i] === 'pipeline') this.pipeline(n);
      else if (types[i] === 'command' && this.interesting(src, n.startIndex)) this.command(n);
    });
    // /dev/tcp and /dev/udp: reverse shells when an interactive shell is wired to them.
    for (const { index } of occurrences(src, ['/dev/tcp', '/dev/udp'])) {
      const node = v.namedAt(index, index + 8);
      if (!node || v.type(node) === 'comment') continue;
      const stmt = v.ancestor(node, new Set(['redirected_statement', 'command']), 6);
      const cmd = stmt && v.type(stmt) === 'redirected_statement' ? v.field(stmt, 'body') : stmt;
      const eff = cmd && v.type(cmd) === 'command' ? this.effective(cmd) : null;
      const shell = eff !== null && INTERPRETER.test(eff.name) && eff.name !== 'source' && eff.name !== '.';
      this.emit(
        shell ? 'reverse_shell' : 'raw_socket',
        node,
        shell ? `${eff?.name} wired to /dev/tcp` : 'connection through /dev/tcp',
      );
    }
    return this.facts;
  }

  private emit(name: string, node: Node, detail: string): void {
    const line = this.view.line(node);
    const key = `${name}@${line}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.facts.push({ kind: 'syntax', line, name, detail });
  }

  /** A command can only matter when its first word is a known command, a wrapper, or not a plain word. */
  private interesting(src: string, start: number): boolean {
    const m = /[^\s;|&()<>]+/y;
    m.lastIndex = start;
    const first = m.exec(src)?.[0] ?? '';
    if (/^[A-Za-z_]\w*=/.test(first)) return true;
    // Session 16: quoting anywhere in the word can spell a command (`"ev"al`, `e\\val`, `$'\\x65val'`).
    if (/[$"'\\`]/.test(first)) return true;
    return (
      INTERESTING.has(first.slice(first.lastIndexOf('/') + 1)) ||
      INTERPRETER.test(first.slice(first.lastIndexOf('/') + 1))
    );
  }

  private recordVariable(n: Node): void {
    const v = this.view;
    const name = v.field(n, 'name');
    const value = v.field(n, 'value');
    if (!name || !value) return;
    if (ARG_TEXT.test(v.text(value)) && !this.inFunction(n)) this.fromInput.add(v.text(name));
    const text = unquote(v.text(value));
    if (text === null) return;
    let set = this.vars.get(v.text(name));
    if (!set) this.vars.set(v.text(name), (set = new Set()));
    set.add(text);
  }

  /** Names a command word can stand for (constant text, or the constant values of a variable). */
  private wordValues(n: Node): string[] {
    const v = this.view;
    const text = v.text(n).trim();
    const plain = unquote(text);
    if (plain !== null) return [basename(plain.replace(/^\\/, ''))];
    const ref = /^"?\$\{?([A-Za-z_]\w*)\}?"?$/.exec(text);
    if (ref && !this.vars.has(ref[1]) && SHELL_VARIABLES[ref[1]]) return [SHELL_VARIABLES[ref[1]]];
    // `${SHELL:-/bin/sh}`: the user's shell or a default shell.
    const withDefault = /^"?\$\{(SHELL|BASH):?[-=][^}$`]*\}"?$/.exec(text);
    if (withDefault && !this.vars.has(withDefault[1])) return [SHELL_VARIABLES[withDefault[1]]];
    if (ref) return [...(this.vars.get(ref[1]) ?? [])].map(basename);
    return [];
  }

  /** The command actually run, after wrappers. */
  private effective(cmd: Node): Effective | null {
    const v = this.view;
    const nameNode = v.field(cmd, 'name');
    if (!nameNode) return null;
    const args = v.fields(cmd, 'argument');
    const texts = args.map((a) => v.text(a));
    const candidates = this.wordValues(v.args(nameNode)[0] ?? nameNode);
    if (candidates.length === 0) return null;
    // Prefer a dangerous candidate when a variable may hold several commands.
    let name = candidates.find((c) => c === 'eval' || INTERPRETER.test(c) || DOWNLOADERS.has(c)) ?? candidates[0];
    let i = 0;
    let xargs: string | true | undefined;
    let wrappedWord: string | undefined;
    let lockFile = false;
    for (let guard = 0; WRAPPERS.has(name) && guard < 8; guard++) {
      const valueOpt = WRAPPER_VALUE_OPTS[name];
      const wrapper = name;
      if (wrapper === 'xargs') xargs = true;
      let next: string | null = null;
      while (i < texts.length) {
        const t = unquote(texts[i]) ?? texts[i];
        i++;
        if (t === '--') continue;
        // `su -c CODE`, `flock f -c CODE`: read as `sh -c CODE` (the option's value is a command line).
        if (SHELL_COMMAND_OPTION.has(wrapper) && (t === '-c' || t === '--command'))
          return { name: 'sh', args: args.slice(i - 1), argTexts: ['-c', ...texts.slice(i)], xargs, wrappedWord };
        if (wrapper === 'flock' && !lockFile && !t.startsWith('-')) {
          lockFile = true;
          continue;
        }
        if (wrapper === 'env' && /^[A-Za-z_]\w*=/.test(t)) continue;
        if (wrapper === 'xargs' && /^-I.|^--replace=./.test(t)) {
          xargs = t.replace(/^-I|^--replace=/, '');
          continue;
        }
        if (t.startsWith('-')) {
          if (wrapper === 'xargs' && t === '-I' && i < texts.length) xargs = unquote(texts[i]) ?? texts[i];
          if (valueOpt?.test(t)) i++;
          continue;
        }
        if (wrapper === 'timeout' && /^\d/.test(t)) continue;
        if (wrapper === 'nice' && /^-?\d+$/.test(t)) continue;
        // Session 16: a wrapped word is resolved as a command word is (`exec "$SHELL" -c …`).
        next = unquote(texts[i - 1]) === null ? (this.wordValues(args[i - 1])[0] ?? basename(t)) : basename(t);
        wrappedWord = texts[i - 1];
        break;
      }
      if (next === null) return { name, args: args.slice(i), argTexts: texts.slice(i), xargs, wrappedWord };
      name = next;
    }
    return { name, args: args.slice(i), argTexts: texts.slice(i), xargs, wrappedWord };
  }

  /**
   * A word that is the caller's text: a positional parameter of the script (inside a function
   * `$1` is the function's own argument, given by the script: `_complete() { $1 -npq …; }`), or
   * one expansion of a variable assigned from them or from `read`. Other variables stay unknown
   * and are not flagged (`for f in ~/.bashrc.d/*; do . "$f"; done`, `$CC -o x x.c`).
   */
  private inFunction(n: Node): boolean {
    return this.view.ancestor(n, FUNCTION_DEFINITION) !== null;
  }

  /** See `inFunction`. */
  private fromCaller(text: string, at: Node): boolean {
    if (POSITIONAL.test(text)) return !this.inFunction(at);
    // Session 16: a positional parameter inside a larger expansion (`"${CMD:-$1}"`, `$(echo "$1")`).
    if (/\$\{?[1-9]/.test(text) && /^["$]/.test(text) && !this.inFunction(at)) return true;
    const m = ONE_VAR.exec(text);
    return m !== null && this.fromInput.has(m[1]);
  }

  /** The text of `n` expands the script's arguments or a variable assigned from them or `read`. */
  private carriesCaller(n: Node): boolean {
    const text = this.view.text(n);
    if (ARG_TEXT.test(text) && !this.inFunction(n)) return true;
    for (const m of text.matchAll(/\$\{?([A-Za-z_]\w*)/g)) if (this.fromInput.has(m[1])) return true;
    return false;
  }

  private pipeline(p: Node): void {
    const v = this.view;
    const stages = v.args(p).map((s) => (v.type(s) === 'redirected_statement' ? v.field(s, 'body') : s));
    let downloadAt = -1;
    stages.forEach((s, i) => {
      if (!s || v.type(s) !== 'command') return;
      const eff = this.effective(s);
      if (!eff) return;
      if (downloadAt < 0 && DOWNLOADERS.has(eff.name)) downloadAt = i;
      else if (downloadAt >= 0 && (INTERPRETER.test(eff.name) || eff.name === 'eval')) {
        this.emit('download_exec', s, `download piped into ${eff.name}`);
      }
      // `echo "$1" | bash`: the caller's text piped into an interpreter that reads its program
      // from standard input (no script or code argument, only options such as -s).
      if (
        i > 0 &&
        INTERPRETER.test(eff.name) &&
        eff.name !== 'source' &&
        eff.name !== '.' &&
        eff.argTexts.every((t) => (unquote(t) ?? '').startsWith('-') && !codeOption(eff.name, unquote(t) ?? '')) &&
        stages.slice(0, i).some((st) => st !== null && this.carriesCaller(st))
      )
        this.emit('interpreter_code', s, `the script's input piped into ${eff.name}`);
    });
  }

  private command(cmd: Node): void {
    const v = this.view;
    // The command word itself taken from the script's arguments or `read` input.
    const word = v.field(cmd, 'name');
    if (word && this.fromCaller(v.text(word).trim(), cmd))
      this.emit('computed_command', cmd, "command named by the script's arguments or input");
    const eff = this.effective(cmd);
    if (!eff) return;
    // … or found behind wrappers (`sudo -u app "$1"`, `nohup "$c" &`, `exec "$1"`).
    if (eff.wrappedWord !== undefined && this.fromCaller(eff.wrappedWord.trim(), cmd))
      this.emit('computed_command', cmd, "command named by the script's arguments or input");
    const { name, argTexts } = eff;
    const flags = argTexts.map((t) => unquote(t) ?? t);
    if (name === 'eval') this.emit('eval', cmd, 'eval');
    // The code an interpreter's -c / -e (perl, ruby, node), -r (php) or -Command (pwsh) option
    // runs, when it is not constant text.
    if (INTERPRETER.test(name) && name !== 'source' && name !== '.') {
      const at = flags.findIndex((f) => codeOption(name, f));
      const code = at >= 0 && at + 1 < argTexts.length ? argTexts[at + 1] : null;
      // Behind xargs the input becomes the code: through its replace string, or appended
      // when nothing follows the option.
      const fromXargs =
        eff.xargs !== undefined &&
        at >= 0 &&
        (code === null ? eff.xargs === true : typeof eff.xargs === 'string' && code.includes(eff.xargs));
      if ((code !== null && unquote(code) === null) || fromXargs)
        this.emit('interpreter_code', cmd, `${name} ${flags[at]} of computed code`);
    }
    // `bash <<< "$1"`: the caller's text as the interpreter's program.
    if (INTERPRETER.test(name) && name !== 'source' && name !== '.') {
      const parent = cmd.parent;
      const redirects = [
        ...v.fields(cmd, 'redirect'),
        ...(parent && v.type(parent) === 'redirected_statement' ? v.fields(parent, 'redirect') : []),
      ];
      if (redirects.some((r) => v.type(r) === 'herestring_redirect' && this.carriesCaller(r)))
        this.emit('interpreter_code', cmd, `${name} given the script's input as its program`);
    }
    // `awk "$1" file`: the program is the caller's text (awk's system() runs commands).
    if (AWK.has(name)) {
      const program = argTexts.find((t, k) => !t.startsWith('-') && !/^-[vf]$/.test(argTexts[k - 1] ?? ''));
      if (program !== undefined && this.fromCaller(program, cmd))
        this.emit('interpreter_code', cmd, `${name} program from the script's input`);
    }
    // `find … -exec sh -c "$1" \;`: the command after -exec, read as a command of its own.
    if (name === 'find') {
      const at = flags.findIndex((f) => FIND_EXEC.has(f));
      const shell = at >= 0 ? basename(flags[at + 1] ?? '') : '';
      if (INTERPRETER.test(shell) && shell !== 'source' && shell !== '.') {
        const rest = argTexts.slice(at + 2);
        const opt = rest.findIndex((t) => codeOption(shell, unquote(t) ?? t));
        if (opt >= 0 && opt + 1 < rest.length && unquote(rest[opt + 1]) === null)
          this.emit('interpreter_code', cmd, `${shell} ${rest[opt]} of computed code (find -exec)`);
      }
    }
    // A file sourced from the script's arguments, `read` input or a variable holding them runs
    // whatever it holds.
    if ((name === 'source' || name === '.') && argTexts.length > 0 && this.fromCaller(argTexts[0], cmd))
      this.emit('source_computed', cmd, `${name} of a file named at run time`);
    // Session 16 (red team): `trap CODE SIGNAL` runs CODE as `eval` does.
    if (name === 'trap' && argTexts.length > 1 && !argTexts[0].startsWith('-') && unquote(argTexts[0]) === null)
      this.emit('interpreter_code', cmd, 'trap of computed code');
    // `source <(echo "$1")`, `bash <(…)`: the caller's text handed over as the file to run; and
    // `. /dev/stdin <<< "$1"`: the here-string sourced through standard input.
    if (INTERPRETER.test(name)) {
      const first = eff.args.find((a) => !v.text(a).startsWith('-'));
      const viaSub = first !== undefined && v.type(first) === 'process_substitution' && this.carriesCaller(first);
      const parent = cmd.parent;
      const here = [
        ...v.fields(cmd, 'redirect'),
        ...(parent && v.type(parent) === 'redirected_statement' ? v.fields(parent, 'redirect') : []),
      ].some((r) => (v.type(r) === 'herestring_redirect' || v.type(r) === 'heredoc_redirect') && this.carriesCaller(r));
      const viaStdin = first !== undefined && STDIN_FILES.has(unquote(v.text(first)) ?? '') && here;
      if (viaSub || viaStdin)
        this.emit(
          name === 'source' || name === '.' ? 'source_computed' : 'interpreter_code',
          cmd,
          `${name} of the script's input`,
        );
    }
    // `printf -v cmd '%s' "$1"` assigns the formatted arguments to `cmd`, as `cmd=$1` would.
    if (name === 'printf' && flags[0] === '-v' && /^[A-Za-z_]\w*$/.test(flags[1] ?? '')) {
      if (eff.args.slice(2).some((a) => this.carriesCaller(a))) this.fromInput.add(flags[1]);
    }
    if (name === 'read') for (const t of argTexts) if (/^[A-Za-z_]\w*$/.test(t)) this.fromInput.add(t);

    if (name === 'eval' || INTERPRETER.test(name)) {
      // Downloads handed over through <(...), $(...), `...` or <<<.
      const parent = cmd.parent;
      const holders = [
        ...eff.args,
        ...v.fields(cmd, 'redirect'),
        ...(parent && v.type(parent) === 'redirected_statement' ? v.fields(parent, 'redirect') : []),
      ];
      for (const h of holders) {
        for (const sub of v.ofType(h, ['command_substitution', 'process_substitution'])) {
          if (v.ofType(sub, ['command']).some((c) => DOWNLOADERS.has(this.effective(c)?.name ?? ''))) {
            this.emit('download_exec', cmd, `downloaded content run by ${name}`);
          }
        }
      }
    }
    if (DOWNLOADERS.has(name)) {
      this.emit('download', cmd, name);
      const insecure =
        (name === 'curl' && flags.some((f) => f === '--insecure' || /^-[A-Za-z]*k[A-Za-z]*$/.test(f))) ||
        (name === 'wget' && flags.includes('--no-check-certificate'));
      if (insecure) this.emit('insecure_download', cmd, `${name} without certificate checks`);
    }
    if (name === 'rm') {
      const recursive = flags.some((f) => f === '--recursive' || /^-[A-Za-z]*[rR][A-Za-z]*$/.test(f));
      const force = flags.some((f) => f === '--force' || /^-[A-Za-z]*f[A-Za-z]*$/.test(f));
      if (recursive && force) {
        const targets = argTexts.filter((t) => !t.startsWith('-'));
        if (targets.some((t) => ROOT_TARGETS.test(t)))
          this.emit('rm_rf_root', cmd, 'rm -rf of a root or home directory');
        else this.emit('rm_rf', cmd, 'rm -rf');
      }
    }
    if (name === 'chmod' && flags.some((f) => worldWritable(f)))
      this.emit('chmod_world_writable', cmd, `chmod ${flags.find((f) => worldWritable(f))}`);
    if (NETCAT.has(name)) {
      const shellExec =
        (name !== 'socat' && flags.some((f) => /^-[A-Za-z]*[ec]$/.test(f))) ||
        (name === 'socat' && flags.some((f) => /^(?:exec|system):/i.test(f)));
      this.emit(
        shellExec ? 'reverse_shell' : 'raw_socket',
        cmd,
        shellExec ? `${name} handing a shell to the network` : name,
      );
    }
  }
}

/**
 * Text of a word without expansions, with its quoting removed as the shell does; null when it
 * contains expansions. Session 16: pieces are concatenated (`"ev"al`), a backslash escapes the next
 * character (`e\\val`), and `$'…'` is decoded (`$'\\x65val'`). One pass, linear.
 */
function unquote(text: string): string | null {
  const t = text.trim();
  let out = '';
  let i = 0;
  while (i < t.length) {
    const c = t[i];
    if (c === "'") {
      const j = t.indexOf("'", i + 1);
      if (j < 0) return null;
      out += t.slice(i + 1, j);
      i = j + 1;
    } else if (c === '$' && t[i + 1] === "'") {
      const r = ansiC(t, i + 2);
      if (r === null) return null;
      out += r.text;
      i = r.end + 1;
    } else if (c === '"') {
      i++;
      while (i < t.length && t[i] !== '"') {
        if (t[i] === '$' || t[i] === '`') return null;
        if (t[i] === '\\' && i + 1 < t.length && '$`"\\'.includes(t[i + 1])) i++;
        out += t[i];
        i++;
      }
      if (i >= t.length) return null;
      i++;
    } else if (c === '\\') {
      if (i + 1 >= t.length) return null;
      out += t[i + 1];
      i += 2;
    } else if (/[\s$`(){}<>|;&]/.test(c)) return null;
    else {
      out += c;
      i++;
    }
  }
  return out;
}

const ANSI_C_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};
/** Decodes a `$'…'` string from `start` (after the quote) to its closing quote; null on an escape it does not know. */
function ansiC(t: string, start: number): { text: string; end: number } | null {
  let out = '';
  let i = start;
  while (i < t.length && t[i] !== "'") {
    if (t[i] !== '\\') {
      out += t[i++];
      continue;
    }
    const e = t[i + 1] ?? '';
    const hex = /^x([0-9A-Fa-f]{1,2})/.exec(t.slice(i + 1, i + 4));
    const oct = /^[0-7]{1,3}/.exec(t.slice(i + 1, i + 4));
    const uni = /^[uU]([0-9A-Fa-f]{1,8})/.exec(t.slice(i + 1, i + 11));
    if (hex) {
      out += String.fromCharCode(parseInt(hex[1], 16));
      i += 1 + hex[0].length;
    } else if (oct) {
      out += String.fromCharCode(parseInt(oct[0], 8) & 0xff);
      i += 1 + oct[0].length;
    } else if (uni) {
      const cp = parseInt(uni[1], 16);
      if (cp > 0x10ffff) return null;
      out += String.fromCodePoint(cp);
      i += 1 + uni[0].length;
    } else if (e in ANSI_C_ESCAPES) {
      out += ANSI_C_ESCAPES[e];
      i += 2;
    } else return null;
  }
  return i < t.length ? { text: out, end: i } : null;
}

function basename(s: string): string {
  return s.slice(s.lastIndexOf('/') + 1);
}

/** chmod modes that let everyone write: octal with the o+w bit, or symbolic a+w / o+w / +w. */
function worldWritable(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (parseInt(mode, 8) & 0o002) !== 0;
  return mode
    .split(',')
    .some((clause) => /^[ugoa]*[+=][rwxXst]*w/.test(clause) && (/^[ugo]*[oa]/.test(clause) || /^[+=]/.test(clause)));
}

export const bashAnalyzer: Analyzer = {
  analyze: (view: SyntaxView) => new BashAnalysis(view).run(),
};
