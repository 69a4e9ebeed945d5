// Assumptions on the variables of a request (`context.domain` and `context.assumptions`).
//
// `context.domain` names one property for every variable (`real`, `positive`, `nonnegative`,
// `integer`; `complex` = none); `context.assumptions` adds properties per variable
// (`{"n": ["positive", "integer"]}`). Properties are closed upwards: positive ⇒ nonnegative ⇒
// real, integer ⇒ real. The canonical form uses them only in rules that hold under them
// (log of a product of positives, roots of non-negative factors, ...) and records which ones a
// proof used; the sampler draws points that satisfy them, so a counterexample does too.
import type { Domain } from './canonical.js';

import { type ContextDomain, type Property } from '../../contract/math.js';
export { DOMAINS, PROPERTIES, type ContextDomain, type Property } from '../../contract/math.js';

const IMPLIES: Record<Property, readonly Property[]> = {
  real: ['real'],
  positive: ['positive', 'nonnegative', 'real'],
  nonnegative: ['nonnegative', 'real'],
  integer: ['integer', 'real'],
};

function closure(props: Iterable<Property>): Set<Property> {
  const out = new Set<Property>();
  for (const p of props) for (const q of IMPLIES[p]) out.add(q);
  return out;
}

export interface AssumptionContext {
  domain?: ContextDomain | undefined;
  assumptions?: Record<string, Property | Property[]> | undefined;
}

export class Assumptions {
  private readonly global: ReadonlySet<Property>;
  private readonly perVar: ReadonlyMap<string, ReadonlySet<Property>>;
  private readonly raw: ReadonlyArray<string>;
  /** Where values are computed: any declared real property makes the evaluation real. */
  readonly evaluationDomain: Domain;
  readonly contextDomain: ContextDomain;

  constructor(ctx: AssumptionContext = {}) {
    this.contextDomain = ctx.domain ?? 'complex';
    this.global = closure(this.contextDomain === 'complex' ? [] : [this.contextDomain]);
    const per = new Map<string, Set<Property>>();
    const raw: string[] = this.contextDomain === 'complex' ? [] : [`all variables ${this.contextDomain}`];
    for (const [name, value] of Object.entries(ctx.assumptions ?? {})) {
      const props = Array.isArray(value) ? value : [value];
      per.set(name, closure(props));
      for (const p of new Set(props)) raw.push(`${name} ${p}`);
    }
    this.perVar = per;
    this.raw = raw.sort();
    this.evaluationDomain = this.contextDomain === 'complex' ? 'complex' : 'real';
  }

  has(variable: string, p: Property): boolean {
    return this.global.has(p) || (this.perVar.get(variable)?.has(p) ?? false);
  }

  /** The declared assumptions as sorted text ("all variables positive", "n integer"). */
  declared(): string[] {
    return [...this.raw];
  }

  /** Whether any property is declared for `variable`. */
  constrains(variable: string): boolean {
    return this.global.size > 0 || this.perVar.has(variable);
  }
}
