// Modules whose members are fixed and known (issue 24, session 16; semgrep-rules'
// `marshal.someokfunc(line)`, flagged before as an unclassified call into a deserialization family).
//
// `marshal` is built into the interpreter: its members are dump, dumps, load, loads and version
// (nothing else in any Python 3), and a local `marshal.py` cannot shadow it (built-in modules are
// found first). `marshal.x(...)` with another plain name raises AttributeError before its
// arguments are evaluated: nothing runs. Unless the snippet can have added the member: every
// occurrence of the name must be a call `.x(`, and the snippet may hold no dynamic write
// (`setattr`, `__dict__`, `vars(`, `globals(`, `sys.modules`, `importlib`). A name starting with
// `_` (`__loader__`, …) is never judged absent. A module changed from another file of the
// program is outside what a snippet shows, as for any module the rules name.

/** Every member of each closed module (dunder attributes aside). */
export const CLOSED_MODULES: Readonly<Record<string, readonly string[]>> = {
  marshal: ['dump', 'dumps', 'load', 'loads', 'version'],
};

const DYNAMIC_WRITE = /\bsetattr\b|__dict__|\bvars\s*\(|\bglobals\s*\(|\bsys\s*\.\s*modules\b|\bimportlib\b/;

/** `name` (`module.member`) is a call of a member a closed module does not have, in a snippet that cannot have added it. */
export function absentMember(name: string, source: string | undefined): boolean {
  const m = /^(\w+)\.([A-Za-z]\w*)$/.exec(name);
  const members = m ? CLOSED_MODULES[m[1]] : undefined;
  if (!m || !members || members.includes(m[2]) || source === undefined || DYNAMIC_WRITE.test(source)) return false;
  const word = new RegExp(`\\b${m[2]}\\b`, 'g');
  const called = new RegExp(`\\.[ \\t]*${m[2]}[ \\t]*\\(`, 'g');
  return (source.match(word)?.length ?? 0) === (source.match(called)?.length ?? 0);
}
