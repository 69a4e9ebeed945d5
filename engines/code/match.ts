// Applies the rule table to the facts of one scan.
import type { CallFact, Fact, NameFact, ReferenceFact } from './facts.js';
import type { Finding } from './findings.js';
import type { Family } from './languages.js';
import type { MatchContext } from './predicates.js';
import { RULES, type RuleRow } from './rules.js';
import { findSecrets } from './secrets.js';
import { absentMember } from './analyzers/closed-modules.js';
import type { WantedNames } from './analyzers/base.js';

type CallRow = RuleRow & { match: Extract<RuleRow['match'], { on: 'call' }> };
type NameRow = RuleRow & { match: Extract<RuleRow['match'], { on: NameFact['kind'] }> };

/** Rule types whose sinks are dangerous to hand over as values (whoever calls them picks the argument). */
const REFERENCE_TYPES: ReadonlySet<string> = new Set([
  'shell_execution',
  'dynamic_code_execution',
  'unsafe_deserialization',
]);
/** Rows whose sink is dangerous only with a particular argument shape (a timer given a string, a pipe path). */
const REFERENCE_EXCLUDED: ReadonlySet<string> = new Set([
  'js.timer-string',
  'js.process-binding',
  'rb.open-pipe',
  'php.preg-e',
  'py.yaml-loader-class',
]);

interface CallEntry {
  row: CallRow;
  test: RegExp;
}

/**
 * `*` matches within one call step (no parentheses), so `child_process.*` matches
 * `child_process.exec` but not `child_process.exec().on`; a leading `*` matches any prefix,
 * so `*.execute` matches `conn.cursor().execute`.
 */
export function globToRegExp(glob: string): RegExp {
  const parts = glob.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const body = parts.map((p, i) => (i === 0 ? p : (i === 1 && parts[0] === '' ? '[\\s\\S]*' : '[^()]*') + p)).join('');
  return new RegExp(`^${body}$`);
}

function firstSegment(name: string): string {
  const m = /^[^.#(]*/.exec(name);
  return m ? m[0] : '';
}

/** Bucket key of a pattern: its leading segment when the wildcard comes after it, else '' (checked for every name). */
function bucketOf(pattern: string): string {
  const star = pattern.indexOf('*');
  const prefix = star < 0 ? pattern : pattern.slice(0, star);
  const seg = firstSegment(prefix);
  return star < 0 || prefix.length > seg.length ? seg : '';
}

/** The rows of one language family, indexed for matching. */
export class RuleIndex {
  private readonly buckets = new Map<string, CallEntry[]>();
  /** `*.m` / `*#m` patterns, by m. */
  private readonly byLast = new Map<string, CallEntry[]>();
  private readonly nameRows: NameRow[] = [];
  private readonly hinted: CallRow[] = [];
  private readonly callRows: CallRow[];
  private readonly names: Omit<WantedNames, 'callPatterns'>;
  readonly textRows: RuleRow[] = [];

  constructor(readonly family: Family) {
    const wanted = {
      attribute: new Set<string>(),
      identifier: new Set<string>(),
      property_write: new Set<string>(),
      syntax: new Set<string>(),
    };
    this.callRows = [];
    for (const row of RULES) {
      if (row.languages !== 'all' && !row.languages.includes(family)) continue;
      const m = row.match;
      if (m.on === 'text') this.textRows.push(row);
      else if (m.on === 'call') {
        if (m.hint) this.hinted.push(row as CallRow);
        this.callRows.push(row as CallRow);
        for (const name of m.names) {
          const entry = { row: row as CallRow, test: globToRegExp(name) };
          const suffix = /^\*[.#]([^*.#()]+)$/.exec(name);
          const map = suffix ? this.byLast : this.buckets;
          const key = suffix ? suffix[1] : bucketOf(name);
          const list = map.get(key);
          if (list) list.push(entry);
          else map.set(key, [entry]);
        }
      } else {
        this.nameRows.push(row as NameRow);
        for (const n of m.names) wanted[m.on].add(n);
      }
    }
    this.names = wanted;
  }

  /** What the analyzer should look for in `source` (call rows whose hint fails are left out). */
  wanted(source: string): WantedNames {
    const callPatterns: string[] = [];
    for (const row of this.callRows) {
      if (!row.match.hint || row.match.hint.test(source)) callPatterns.push(...row.match.names);
    }
    return { ...this.names, callPatterns };
  }

  /** Findings for the facts of one scan of `source`. */
  match(facts: readonly Fact[], source: string, ctx: MatchContext): Finding[] {
    const inactive = new Set<string>();
    for (const row of this.hinted) if (row.match.hint && !row.match.hint.test(source)) inactive.add(row.id);
    const out: Finding[] = [];
    for (const fact of facts) {
      if (fact.kind === 'call') this.matchCall(fact, inactive, ctx, out, source);
      else if (fact.kind === 'reference') this.matchReference(fact, out);
      else this.matchName(fact, out);
    }
    return out;
  }

  private matchCall(
    fact: CallFact,
    inactive: ReadonlySet<string>,
    ctx: MatchContext,
    out: Finding[],
    source: string,
  ): void {
    const done = new Set<string>();
    const before = out.length;
    const fallbacks: Array<{ row: CallRow; name: string }> = [];
    /** Some row of the table knows this call (whether or not its argument condition held). */
    let classified = false;
    const wild = this.buckets.get('') ?? [];
    for (const name of fact.names) {
      const bucket = this.buckets.get(firstSegment(name)) ?? [];
      const byLast = this.byLast.get(/[^.#()]*$/.exec(name)![0]) ?? [];
      for (const list of [bucket, byLast, wild]) {
        for (const { row, test } of list) {
          if (done.has(row.id) || inactive.has(row.id) || !test.test(name)) continue;
          if (row.match.fallback) {
            if (row.match.except?.some((e) => globToRegExp(e).test(name))) continue;
            // A member a closed module does not have raises before anything runs (session 16).
            if (row.match.closed && absentMember(name, source)) continue;
            fallbacks.push({ row, name });
            continue;
          }
          classified = true;
          const result = row.match.where ? row.match.where.test(fact.site(), ctx) : true;
          if (result === false) continue;
          done.add(row.id);
          out.push({
            rule_id: row.id,
            severity: row.severity,
            type: row.type,
            line_number: fact.line,
            description: `${row.description}: ${name}${typeof result === 'string' ? result : ''}`,
          });
        }
      }
    }
    // A call into a known execution or deserialization family that no row classified (neither
    // as dangerous nor as one of the family's known-safe members) fails closed.
    if (fallbacks.length > 0 && !classified && !out.slice(before).some((f) => f.severity === 'critical')) {
      const { row, name } = fallbacks[0];
      out.push({
        rule_id: row.id,
        severity: row.severity,
        type: row.type,
        line_number: fact.line,
        description: `${row.description}: ${name}`,
      });
    }
  }

  /**
   * A dangerous callable handed over as a value: the critical execution and deserialization rows
   * match on the name alone (their argument conditions cannot be checked where it is called).
   */
  private matchReference(fact: ReferenceFact, out: Finding[]): void {
    const done = new Set<string>();
    const wild = this.buckets.get('') ?? [];
    for (const name of fact.names) {
      const bucket = this.buckets.get(firstSegment(name)) ?? [];
      for (const list of [bucket, wild]) {
        for (const { row, test } of list) {
          if (
            done.has(row.id) ||
            row.match.fallback ||
            row.severity !== 'critical' ||
            !REFERENCE_TYPES.has(row.type) ||
            REFERENCE_EXCLUDED.has(row.id) ||
            !test.test(name)
          )
            continue;
          done.add(row.id);
          out.push({
            rule_id: row.id,
            severity: row.severity,
            type: row.type,
            line_number: fact.line,
            description: `${row.description} (the callable is passed on as a value, to be called with any argument): ${name}`,
          });
        }
      }
    }
  }

  private matchName(fact: NameFact, out: Finding[]): void {
    for (const row of this.nameRows) {
      if (row.match.on !== fact.kind || !row.match.names.includes(fact.name)) continue;
      out.push({
        rule_id: row.id,
        severity: row.severity,
        type: row.type,
        line_number: fact.line,
        description: `${row.description}: ${fact.detail ?? fact.name}`,
      });
    }
  }

  /** Credential findings over the raw text (line numbers from offsets). */
  matchText(text: string): Finding[] {
    if (this.textRows.length === 0) return [];
    const hits = findSecrets(text);
    if (hits.length === 0) return [];
    const lineOf = lineLocator(text);
    const out: Finding[] = [];
    for (const hit of hits) {
      const row = this.textRows.find((r) => r.match.on === 'text' && r.match.secret === hit.check);
      if (!row) continue;
      out.push({
        rule_id: row.id,
        severity: row.severity,
        type: row.type,
        line_number: lineOf(hit.index),
        description: `${row.description}: ${hit.masked}`,
      });
    }
    return out;
  }
}

/** Maps a character offset to its 1-based line. */
export function lineLocator(text: string): (index: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const indexes = new Map<Family, RuleIndex>();

export function ruleIndex(family: Family): RuleIndex {
  let idx = indexes.get(family);
  if (!idx) indexes.set(family, (idx = new RuleIndex(family)));
  return idx;
}
