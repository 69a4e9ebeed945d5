// The `local` provider's logic translator: simple English comparisons on one or more
// variables into the logic DSL, deterministically ("x is greater than 5 and less than 10" ->
// (AND (GT x 5) (LT x 10))). Pure and linear (one word split, one left-to-right pass). What it
// cannot translate completely is is_logic_query false with the reason; never a guess.

export interface LocalLogicTranslation {
  is_logic_query: boolean;
  dsl: string | null;
  reasoning: string;
}

const MAX_CHARS = 2000;
const MAX_WORDS = 200;

/** Comparison phrases, longest first (so "greater than or equal to" wins over "greater than"). */
const COMPARISONS: Array<[string[], string]> = [
  [['greater', 'than', 'or', 'equal', 'to'], 'GTE'],
  [['more', 'than', 'or', 'equal', 'to'], 'GTE'],
  [['less', 'than', 'or', 'equal', 'to'], 'LTE'],
  [['smaller', 'than', 'or', 'equal', 'to'], 'LTE'],
  [['not', 'equal', 'to'], 'NEQ'],
  [['different', 'from'], 'NEQ'],
  [['no', 'less', 'than'], 'GTE'],
  [['no', 'more', 'than'], 'LTE'],
  [['at', 'least'], 'GTE'],
  [['at', 'most'], 'LTE'],
  [['greater', 'than'], 'GT'],
  [['more', 'than'], 'GT'],
  [['larger', 'than'], 'GT'],
  [['bigger', 'than'], 'GT'],
  [['higher', 'than'], 'GT'],
  [['above'], 'GT'],
  [['exceeds'], 'GT'],
  [['less', 'than'], 'LT'],
  [['smaller', 'than'], 'LT'],
  [['lower', 'than'], 'LT'],
  [['fewer', 'than'], 'LT'],
  [['below'], 'LT'],
  [['under'], 'LT'],
  [['equal', 'to'], 'EQ'],
  [['equals'], 'EQ'],
];

const VARIABLE = /^[a-z][a-z0-9_]{0,15}$/;
const NUMBER = /^-?\d{1,30}(\.\d{1,30})?$/;
const STOP = new Set([
  'and',
  'or',
  'is',
  'are',
  'be',
  'it',
  'the',
  'a',
  'an',
  'than',
  'to',
  'not',
  'between',
  'such',
  'that',
  'find',
  'where',
  'with',
  'at',
  'no',
]);

function fail(reason: string): LocalLogicTranslation {
  return { is_logic_query: false, dsl: null, reasoning: `local translator: ${reason}` };
}

/** Translates simple comparisons; returns is_logic_query false with a reason for anything else. */
export function translateLogicLocally(query: string): LocalLogicTranslation {
  if (query.length > MAX_CHARS) return fail(`the query is longer than ${MAX_CHARS} characters`);
  const words = query
    .toLowerCase()
    .replace(/[?.!,;:]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0);
  if (words.length === 0) return fail('the query is empty');
  if (words.length > MAX_WORDS) return fail(`the query has more than ${MAX_WORDS} words`);
  let i = 0;
  const at = (...ws: string[]) => ws.every((w, k) => words[i + k] === w);
  const eat = (...ws: string[]) => (at(...ws) ? ((i += ws.length), true) : false);
  // Lead-ins: "find x such that", "find a value of x where", "is there an x such that", "can x be".
  eat('find') || eat('is', 'there');
  eat('a', 'value', 'of') || eat('values', 'of') || eat('an') || eat('a');
  const lead = i;
  if (
    words[i] &&
    VARIABLE.test(words[i] as string) &&
    !STOP.has(words[i] as string) &&
    (at(words[i] as string, 'such', 'that') || at(words[i] as string, 'where') || at(words[i] as string, 'with'))
  ) {
    i++;
    eat('such', 'that') || eat('where') || eat('with');
  } else i = lead;

  const clauses: string[] = [];
  const joins: Array<'AND' | 'OR'> = [];
  let subject: string | null = null;
  while (i < words.length) {
    if (clauses.length > 0) {
      if (eat('and')) joins.push('AND');
      else if (eat('or')) joins.push('OR');
      else return fail(`could not translate from "${words[i]}" on`);
    }
    // Optional new subject: "<var> is|are"; otherwise the previous subject continues.
    const w = words[i];
    if (
      w &&
      VARIABLE.test(w) &&
      !STOP.has(w) &&
      (words[i + 1] === 'is' || words[i + 1] === 'must' || words[i + 1] === 'should')
    ) {
      subject = w;
      i++;
      eat('must', 'be') || eat('should', 'be');
    }
    if (subject === null) return fail('no variable to constrain (write e.g. "x is greater than 5")');
    eat('is') || eat('be');
    const negated = !at('not', 'equal', 'to') && eat('not');
    let clause: string | null = null;
    if (eat('between')) {
      const lo = words[i];
      if (!lo || !NUMBER.test(lo) || words[i + 1] !== 'and' || !words[i + 2] || !NUMBER.test(words[i + 2] as string))
        return fail('"between" needs two numbers: "between 1 and 10"');
      i += 3;
      clause = `(AND (GTE ${subject} ${lo}) (LTE ${subject} ${words[i - 1]}))`;
    } else if (eat('positive')) clause = `(GT ${subject} 0)`;
    else if (eat('negative')) clause = `(LT ${subject} 0)`;
    else if (eat('non', 'negative') || eat('nonnegative')) clause = `(GTE ${subject} 0)`;
    else {
      let op: string | null = null;
      for (const [phrase, o] of COMPARISONS) {
        if (eat(...phrase)) {
          op = o;
          break;
        }
      }
      const rhs = words[i];
      if (op === null) {
        // "x is 5"
        if (rhs && NUMBER.test(rhs)) op = 'EQ';
        else return fail(`could not translate from "${words[i] ?? 'the end'}" on`);
      }
      if (!rhs || !(NUMBER.test(rhs) || (VARIABLE.test(rhs) && !STOP.has(rhs))))
        return fail('a comparison needs a number or a variable after it');
      i++;
      clause = `(${op} ${subject} ${rhs})`;
    }
    clauses.push(negated ? `(NOT ${clause})` : clause);
  }
  if (clauses.length === 0) return fail('no comparison found');
  // AND binds tighter than OR: group the AND runs, then join them with OR.
  const groups: string[][] = [[clauses[0] as string]];
  for (let k = 0; k < joins.length; k++) {
    if (joins[k] === 'AND') (groups[groups.length - 1] as string[]).push(clauses[k + 1] as string);
    else groups.push([clauses[k + 1] as string]);
  }
  const conj = groups.map((g) => (g.length === 1 ? (g[0] as string) : `(AND ${g.join(' ')})`));
  const dsl = conj.length === 1 ? (conj[0] as string) : `(OR ${conj.join(' ')})`;
  return { is_logic_query: true, dsl, reasoning: `local translator: ${dsl}` };
}
