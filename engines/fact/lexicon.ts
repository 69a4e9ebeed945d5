// Word lists of the fact engine (English). Small, explicit and reviewed: every entry is a
// signal that can flip a verdict, so nothing here is a bare-substring keyword list; words are
// compared as whole, lower-cased tokens (after the light stemming of tokens.ts where noted).

/** Function words: ignored when measuring how much of a claim a sentence covers. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but of in on at to for from by with as into onto upon about than then so such that this these those there here ' +
    'is are was were be been being am do does did has have had having will would shall should can could may might must ' +
    'it its it\'s he she they them their theirs his her hers we us our you your i me my mine who whom whose which what when where why how ' +
    'also very just only both each either any some all most many much own same other another per via its one s'
  ).split(/\s+/),
);

/** Negation cues (whole tokens). "not only" is not a negation (handled in analyze.ts). */
export const NEGATIONS: ReadonlySet<string> = new Set([
  'not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'cannot', 'without', 'nowhere', 'hardly', 'false', 'untrue',
]);

/** Contractions ending in n't count as negations (isn't, wasn't, doesn't, can't, won't...). */
export const isNegationToken = (w: string): boolean => NEGATIONS.has(w) || w.endsWith("n't") || w.endsWith('n’t');

/**
 * Words that, in a sentence but not in the claim, stop a sentence from supporting the claim:
 * the sentence reports, doubts or conditions the statement rather than asserting it.
 */
export const HEDGES: ReadonlySet<string> = new Set([
  'myth', 'misconception', 'rumour', 'rumor', 'rumoured', 'rumored', 'alleged', 'allegedly', 'supposedly', 'claimed', 'claims',
  'incorrectly', 'wrongly', 'mistakenly', 'falsely', 'if', 'whether', 'unless', 'might', 'may', 'could', 'perhaps', 'possibly',
  'reportedly', 'unconfirmed', 'disputed', 'debunked', 'denied', 'denies', 'deny', 'hypothetical', 'hypothetically',
]);

/** Antonym pairs (both directions are registered). Compared on lower-cased, stemmed tokens. */
const ANTONYM_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['increase', 'decrease'], ['increased', 'decreased'], ['increasing', 'decreasing'], ['rise', 'fall'], ['rose', 'fell'], ['risen', 'fallen'],
  ['grow', 'shrink'], ['grew', 'shrank'], ['gain', 'loss'], ['gained', 'lost'], ['win', 'lose'], ['won', 'lost'], ['winner', 'loser'],
  ['higher', 'lower'], ['highest', 'lowest'], ['high', 'low'], ['more', 'less'], ['most', 'least'], ['larger', 'smaller'], ['largest', 'smallest'],
  ['bigger', 'smaller'], ['biggest', 'smallest'], ['greater', 'lesser'], ['longer', 'shorter'], ['longest', 'shortest'], ['older', 'younger'],
  ['oldest', 'youngest'], ['faster', 'slower'], ['fastest', 'slowest'], ['heavier', 'lighter'], ['before', 'after'], ['earlier', 'later'],
  ['above', 'below'], ['over', 'under'], ['inside', 'outside'], ['north', 'south'], ['east', 'west'], ['northern', 'southern'], ['eastern', 'western'],
  ['first', 'last'], ['open', 'closed'], ['opened', 'closed'], ['alive', 'dead'], ['true', 'false'], ['correct', 'incorrect'], ['legal', 'illegal'],
  ['possible', 'impossible'], ['safe', 'unsafe'], ['positive', 'negative'], ['maximum', 'minimum'], ['accept', 'reject'], ['accepted', 'rejected'],
  ['approve', 'reject'], ['approved', 'rejected'], ['allow', 'forbid'], ['allowed', 'forbidden'], ['permitted', 'prohibited'], ['success', 'failure'],
  ['succeeded', 'failed'], ['successful', 'unsuccessful'], ['profit', 'loss'], ['profitable', 'unprofitable'], ['import', 'export'], ['imports', 'exports'],
  ['buy', 'sell'], ['bought', 'sold'], ['start', 'end'], ['started', 'ended'], ['begin', 'end'], ['entry', 'exit'], ['hot', 'cold'], ['warmer', 'colder'],
  ['wet', 'dry'], ['rich', 'poor'], ['cheap', 'expensive'], ['cheaper', 'dearer'], ['majority', 'minority'], ['always', 'never'], ['everyone', 'nobody'],
  ['male', 'female'], ['public', 'private'], ['internal', 'external'], ['input', 'output'], ['present', 'absent'], ['include', 'exclude'],
  ['included', 'excluded'], ['support', 'oppose'], ['supported', 'opposed'], ['agree', 'disagree'], ['agreed', 'disagreed'], ['upper', 'lower'],
];

export const ANTONYMS: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const m = new Map<string, Set<string>>();
  const add = (a: string, b: string) => {
    if (!m.has(a)) m.set(a, new Set());
    m.get(a)!.add(b);
  };
  for (const [a, b] of ANTONYM_PAIRS) {
    add(a, b);
    add(b, a);
  }
  return m;
})();

/** Comparator words before a number: the quantity is then an interval, not a point. */
export const COMPARATORS: ReadonlyArray<{ words: readonly string[]; op: QuantityOp }> = [
  { words: ['more', 'than'], op: 'gt' },
  { words: ['greater', 'than'], op: 'gt' },
  { words: ['higher', 'than'], op: 'gt' },
  { words: ['over'], op: 'gt' },
  { words: ['above'], op: 'gt' },
  { words: ['exceeding'], op: 'gt' },
  { words: ['at', 'least'], op: 'ge' },
  { words: ['no', 'fewer', 'than'], op: 'ge' },
  { words: ['no', 'less', 'than'], op: 'ge' },
  { words: ['minimum', 'of'], op: 'ge' },
  { words: ['less', 'than'], op: 'lt' },
  { words: ['fewer', 'than'], op: 'lt' },
  { words: ['lower', 'than'], op: 'lt' },
  { words: ['under'], op: 'lt' },
  { words: ['below'], op: 'lt' },
  { words: ['at', 'most'], op: 'le' },
  { words: ['no', 'more', 'than'], op: 'le' },
  { words: ['up', 'to'], op: 'le' },
  { words: ['maximum', 'of'], op: 'le' },
  { words: ['about'], op: 'approx' },
  { words: ['around'], op: 'approx' },
  { words: ['approximately'], op: 'approx' },
  { words: ['approx'], op: 'approx' },
  { words: ['roughly'], op: 'approx' },
  { words: ['nearly'], op: 'approx' },
  { words: ['almost'], op: 'approx' },
  { words: ['some'], op: 'approx' },
  { words: ['circa'], op: 'approx' },
  { words: ['c'], op: 'approx' },
  { words: ['estimated'], op: 'approx' },
  { words: ['exactly'], op: 'eq' },
  { words: ['precisely'], op: 'eq' },
];

export type QuantityOp = 'eq' | 'approx' | 'gt' | 'ge' | 'lt' | 'le';

/** Scale words after a number. */
export const SCALES: ReadonlyMap<string, number> = new Map([
  ['hundred', 1e2], ['thousand', 1e3], ['million', 1e6], ['billion', 1e9], ['trillion', 1e12], ['bn', 1e9], ['mn', 1e6],
]);

/** A unit: its dimension and the factor (or, for temperatures, the offset) to the base unit. */
export interface UnitDef {
  dim: string;
  factor: number;
  offset?: number;
}

/** Unit words and symbols (lower-case, as single tokens; multi-token units are in MULTI_UNITS). */
export const UNITS: ReadonlyMap<string, UnitDef> = new Map<string, UnitDef>([
  // length → metre
  ['mm', { dim: 'length', factor: 1e-3 }], ['millimetre', { dim: 'length', factor: 1e-3 }], ['millimeter', { dim: 'length', factor: 1e-3 }],
  ['cm', { dim: 'length', factor: 1e-2 }], ['centimetre', { dim: 'length', factor: 1e-2 }], ['centimeter', { dim: 'length', factor: 1e-2 }],
  ['m', { dim: 'length', factor: 1 }], ['metre', { dim: 'length', factor: 1 }], ['meter', { dim: 'length', factor: 1 }],
  ['km', { dim: 'length', factor: 1e3 }], ['kilometre', { dim: 'length', factor: 1e3 }], ['kilometer', { dim: 'length', factor: 1e3 }],
  ['mile', { dim: 'length', factor: 1609.344 }], ['mi', { dim: 'length', factor: 1609.344 }], ['yard', { dim: 'length', factor: 0.9144 }],
  ['foot', { dim: 'length', factor: 0.3048 }], ['feet', { dim: 'length', factor: 0.3048 }], ['ft', { dim: 'length', factor: 0.3048 }],
  ['inch', { dim: 'length', factor: 0.0254 }], ['inche', { dim: 'length', factor: 0.0254 }],
  // mass → kilogram
  ['mg', { dim: 'mass', factor: 1e-6 }], ['milligram', { dim: 'mass', factor: 1e-6 }], ['g', { dim: 'mass', factor: 1e-3 }],
  ['gram', { dim: 'mass', factor: 1e-3 }], ['kg', { dim: 'mass', factor: 1 }], ['kilogram', { dim: 'mass', factor: 1 }],
  ['kilo', { dim: 'mass', factor: 1 }], ['tonne', { dim: 'mass', factor: 1000 }], ['t', { dim: 'mass', factor: 1000 }],
  ['lb', { dim: 'mass', factor: 0.45359237 }], ['lbs', { dim: 'mass', factor: 0.45359237 }], ['pound', { dim: 'mass', factor: 0.45359237 }],
  ['oz', { dim: 'mass', factor: 0.028349523125 }], ['ounce', { dim: 'mass', factor: 0.028349523125 }],
  // time → second
  ['ms', { dim: 'time', factor: 1e-3 }], ['millisecond', { dim: 'time', factor: 1e-3 }], ['second', { dim: 'time', factor: 1 }],
  ['sec', { dim: 'time', factor: 1 }], ['minute', { dim: 'time', factor: 60 }], ['min', { dim: 'time', factor: 60 }],
  ['hour', { dim: 'time', factor: 3600 }], ['hr', { dim: 'time', factor: 3600 }], ['h', { dim: 'time', factor: 3600 }],
  ['day', { dim: 'time', factor: 86400 }], ['week', { dim: 'time', factor: 604800 }], ['month', { dim: 'time', factor: 2629746 }],
  ['year', { dim: 'time', factor: 31556952 }], ['yr', { dim: 'time', factor: 31556952 }], ['decade', { dim: 'time', factor: 315569520 }],
  ['century', { dim: 'time', factor: 3155695200 }], ['centurie', { dim: 'time', factor: 3155695200 }],
  // speed → metre per second
  ['mph', { dim: 'speed', factor: 0.44704 }], ['kph', { dim: 'speed', factor: 1 / 3.6 }],
  // area
  ['hectare', { dim: 'area', factor: 1e4 }], ['ha', { dim: 'area', factor: 1e4 }], ['acre', { dim: 'area', factor: 4046.8564224 }],
  // volume → litre
  ['l', { dim: 'volume', factor: 1 }], ['litre', { dim: 'volume', factor: 1 }], ['liter', { dim: 'volume', factor: 1 }],
  ['ml', { dim: 'volume', factor: 1e-3 }], ['millilitre', { dim: 'volume', factor: 1e-3 }], ['milliliter', { dim: 'volume', factor: 1e-3 }],
  ['gallon', { dim: 'volume', factor: 3.785411784 }],
  // energy / power / data
  ['kwh', { dim: 'energy', factor: 3.6e6 }], ['joule', { dim: 'energy', factor: 1 }], ['calorie', { dim: 'energy', factor: 4.184 }],
  ['kcal', { dim: 'energy', factor: 4184 }], ['w', { dim: 'power', factor: 1 }], ['watt', { dim: 'power', factor: 1 }],
  ['kw', { dim: 'power', factor: 1e3 }], ['mw', { dim: 'power', factor: 1e6 }], ['gw', { dim: 'power', factor: 1e9 }],
  ['kb', { dim: 'data', factor: 1e3 }], ['mb', { dim: 'data', factor: 1e6 }], ['gb', { dim: 'data', factor: 1e9 }], ['tb', { dim: 'data', factor: 1e12 }],
  ['byte', { dim: 'data', factor: 1 }],
  // temperature → kelvin (value * factor + offset)
  ['celsius', { dim: 'temperature', factor: 1, offset: 273.15 }], ['°c', { dim: 'temperature', factor: 1, offset: 273.15 }],
  ['fahrenheit', { dim: 'temperature', factor: 5 / 9, offset: 255.3722222222222 }], ['°f', { dim: 'temperature', factor: 5 / 9, offset: 255.3722222222222 }],
  ['kelvin', { dim: 'temperature', factor: 1 }],
  // percentages
  ['%', { dim: 'percent', factor: 1 }], ['percent', { dim: 'percent', factor: 1 }], ['pct', { dim: 'percent', factor: 1 }],
]);

/** Units written as two or three tokens. */
export const MULTI_UNITS: ReadonlyArray<{ words: readonly string[]; unit: UnitDef }> = [
  { words: ['per', 'cent'], unit: { dim: 'percent', factor: 1 } },
  { words: ['percentage', 'point'], unit: { dim: 'percentage_points', factor: 1 } },
  { words: ['km', '/', 'h'], unit: { dim: 'speed', factor: 1 / 3.6 } },
  { words: ['m', '/', 's'], unit: { dim: 'speed', factor: 1 } },
  { words: ['miles', 'per', 'hour'], unit: { dim: 'speed', factor: 0.44704 } },
  { words: ['kilometres', 'per', 'hour'], unit: { dim: 'speed', factor: 1 / 3.6 } },
  { words: ['kilometers', 'per', 'hour'], unit: { dim: 'speed', factor: 1 / 3.6 } },
  { words: ['degrees', 'celsius'], unit: { dim: 'temperature', factor: 1, offset: 273.15 } },
  { words: ['degrees', 'fahrenheit'], unit: { dim: 'temperature', factor: 5 / 9, offset: 255.3722222222222 } },
  { words: ['°', 'c'], unit: { dim: 'temperature', factor: 1, offset: 273.15 } },
  { words: ['°', 'f'], unit: { dim: 'temperature', factor: 5 / 9, offset: 255.3722222222222 } },
  { words: ['square', 'kilometres'], unit: { dim: 'area', factor: 1e6 } },
  { words: ['square', 'kilometers'], unit: { dim: 'area', factor: 1e6 } },
  { words: ['square', 'metres'], unit: { dim: 'area', factor: 1 } },
  { words: ['square', 'meters'], unit: { dim: 'area', factor: 1 } },
  { words: ['square', 'miles'], unit: { dim: 'area', factor: 2589988.110336 } },
  { words: ['km', '2'], unit: { dim: 'area', factor: 1e6 } },
  { words: ['km', '²'], unit: { dim: 'area', factor: 1e6 } },
];

/** Currency symbols written before the amount, and currency words after it. */
export const CURRENCY_SYMBOLS: ReadonlyMap<string, string> = new Map([['$', 'USD'], ['€', 'EUR'], ['£', 'GBP'], ['¥', 'JPY'], ['₹', 'INR']]);
export const CURRENCY_WORDS: ReadonlyMap<string, string> = new Map([
  ['dollar', 'USD'], ['usd', 'USD'], ['euro', 'EUR'], ['eur', 'EUR'], ['gbp', 'GBP'], ['sterling', 'GBP'], ['yen', 'JPY'], ['jpy', 'JPY'],
  ['rupee', 'INR'], ['inr', 'INR'], ['franc', 'CHF'], ['chf', 'CHF'], ['yuan', 'CNY'], ['cny', 'CNY'],
]);

export const MONTHS: ReadonlyMap<string, number> = new Map([
  ['january', 1], ['jan', 1], ['february', 2], ['feb', 2], ['march', 3], ['mar', 3], ['april', 4], ['apr', 4], ['may', 5], ['june', 6],
  ['jun', 6], ['july', 7], ['jul', 7], ['august', 8], ['aug', 8], ['september', 9], ['sep', 9], ['sept', 9], ['october', 10], ['oct', 10],
  ['november', 11], ['nov', 11], ['december', 12], ['dec', 12],
]);

/** Abbreviations whose trailing period does not end a sentence. */
export const ABBREVIATIONS: ReadonlySet<string> = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'etc', 'inc', 'ltd', 'co', 'corp', 'no', 'fig', 'approx', 'est', 'gen', 'col',
  'lt', 'sgt', 'capt', 'rev', 'hon', 'mt', 'ft', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'e', 'i', 'g',
  'u', 's', 'a', 'p', 'm', 'c', 'ca', 'cf', 'al',
]);
