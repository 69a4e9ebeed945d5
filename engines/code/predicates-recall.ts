// Session 16 (issue 24, recall): call conditions for the recall misses of the independent suites
// (rules.ts rows js.runtime-spawn, js.vm2-sandbox-parameter, js.thenify-function-name). Kept apart
// from predicates.ts so the session's edits stay in one file.
import { RE2JS } from 're2js';
import type { CallSite } from './facts.js';
import type { MatchContext, Predicate, PredicateResult } from './predicates.js';
import { isRef } from './scopes.js';

const pred = (spec: string, test: (site: CallSite, ctx: MatchContext) => PredicateResult): Predicate => ({
  spec,
  test,
});
const argAt = (site: CallSite, i: number) => (i < 0 ? site.args[site.args.length + i] : site.args[i]);

/**
 * Always matches; when argument `i` is an object literal whose `key:` property starts below the
 * call's first line (`Deno.run({\n  cmd: [...] })`), the finding names that line too (session 16).
 */
export const propertyLine = (i: number, key: string): Predicate => {
  // `key:` or the shorthand `key,` / `key }`.
  const re = new RegExp(`(?:^|[{,\\s])${key}\\s*(?::|(?=[,}]))`);
  return pred(`propertyLine(${i},${key})`, (site) => {
    const a = argAt(site, i);
    const m = a?.line === undefined ? null : re.exec(a.text);
    if (!a?.line || !m) return true;
    const line = a.line + (a.text.slice(0, m.index + m[0].length).match(/\n/g)?.length ?? 0);
    return line > site.line ? `; ${key} on line ${line}` : true;
  });
};

/**
 * Session 16: argument `i` is an options object whose `sandbox` (vm2's VM / NodeVM) is, or is built
 * from, a parameter of the enclosing function: the caller chooses what the sandboxed code can reach.
 * An options value that is not an object literal is followed whole (fail closed).
 */
export const sandboxFromParameter = (i: number): Predicate =>
  pred(`sandboxFromParameter(${i})`, (site, ctx) => {
    const a = argAt(site, i);
    if (a === undefined || a.constant() !== null) return false;
    const text = a.text.trim();
    let part = text;
    if (text.startsWith('{')) {
      const m = /(?:^|[{,\s])sandbox\s*(?::\s*([^,}]+)|(?=[,}\s]))/.exec(text);
      if (!m) return false;
      part = m[1] ?? 'sandbox';
    }
    const param = ctx.fromParameters?.(site.line, part);
    return param ? `; the sandbox carries the parameter \`${param}\`` : false;
  });

/**
 * Session 16: argument `i` is a function whose name the snippet does not show (a parameter, a call
 * result, anything but a function written in place or a name resolved to a module member): thenify
 * before 3.3.1 evaluates `'(function ' + fn.name + '() {…'` as code (CVE-2020-7677).
 */
export const unseenFunctionName = (i: number): Predicate =>
  pred(`unseenFunctionName(${i})`, (site, ctx) => {
    const a = argAt(site, i);
    if (a === undefined) return false;
    const text = a.text.trim();
    if (FUNCTION_TEXT.test(text)) return false;
    const values = a.values();
    // `?.fn`: a member of an unknown value (a parameter's method) has a name the caller chooses.
    if (values.length > 0 && values.every((v) => isRef(v) && !v.startsWith('?') && !v.endsWith(')'))) return false;
    // A name declared once in the snippet as a function (and not a parameter where it is used).
    if (/^[A-Za-z_$][\w$]*$/.test(text) && ctx.source !== undefined && !ctx.fromParameters?.(site.line, text)) {
      // RE2 (linear time): the source is user input.
      const name = text.replace(/\$/g, '\\$');
      const found = (re: string) => RE2JS.compile(re).matcher(ctx.source!).find();
      const declared = found(`(?:^|[^\\w$.])function\\s*\\*?\\s*${name}\\s*\\(`);
      const bound = found(
        `(?:const|let|var)\\s+${name}\\s*=\\s*(?:async\\s+)?(?:function\\b|(?:[\\w$]+|\\([^)]*\\))\\s*=>)`,
      );
      const writes = RE2JS.compile(`(?:^|[^\\w$.])${name}\\s*=(?:[^=>]|$)`).matcher(ctx.source);
      let assigned = 0;
      while (assigned < 2 && writes.find()) assigned++;
      if ((declared && assigned === 0) || (bound && assigned === 1)) return false;
    }
    return "; the wrapped function's name is not shown (thenify before 3.3.1 evaluates it as code)";
  });
/** A function written in place (`function (…) {…}`, `async (…) => …`). */
const FUNCTION_TEXT = /^(?:async\s+)?function\b|^(?:async\s+)?(?:[\w$]+|\([^)]*\))\s*=>/;
