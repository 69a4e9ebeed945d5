import { describe, expect, it } from 'vitest';
import {
  IRAC_CUES,
  milestoneRegex,
  processRequestSchema,
  validateProcessRequest,
  verifyIrac,
  verifyMilestones,
  verifyProcess,
} from '../../engines/process.js';

const NONE = { issue: null, rule: null, application: null, conclusion: null };

describe('IRAC by cue phrases', () => {
  it('finds all four steps and names the cue of each', () => {
    expect(
      verifyIrac(
        'The issue is whether the contract binds. The rule is consideration. In this case, money changed hands. Therefore it binds.',
      ),
    ).toEqual({
      verified: true,
      score: 1,
      missing_steps: [],
      mechanism: { issue: 'cue:issue', rule: 'cue:rule', application: 'cue:in this case', conclusion: 'cue:therefore' },
    });
  });

  it.each([
    ['question', 'issue'],
    ['problem presented', 'issue'],
    ['law', 'rule'],
    ['statute', 'rule'],
    ['regulation', 'rule'],
    ['application', 'application'],
    ['analysis', 'application'],
    ['applying', 'application'],
    ['conclusion', 'conclusion'],
    ['holding', 'conclusion'],
    ['verdict', 'conclusion'],
  ])('cue "%s" marks %s', (cue, step) => {
    const r = verifyIrac(`Some text with the ${cue} in it.`);
    expect(r.mechanism[step as keyof typeof r.mechanism]).toBe(`cue:${cue}`);
    expect(r.score).toBe(0.25);
  });

  it('lists every cue of the reference notes', () => {
    expect(IRAC_CUES).toEqual({
      issue: ['issue', 'question', 'problem presented'],
      rule: ['rule', 'law', 'statute', 'regulation', 'article <n>'],
      application: ['application', 'analysis', 'applying', 'in this case'],
      conclusion: ['conclusion', 'holding', 'verdict', 'therefore'],
    });
  });

  it('is case-insensitive and tolerates line breaks inside a phrase', () => {
    const r = verifyIrac('THE PROBLEM\nPRESENTED here. IN THIS\tCASE we look. THEREFORE yes. The LAW says so.');
    expect(r).toEqual({
      verified: true,
      score: 1,
      missing_steps: [],
      mechanism: {
        issue: 'cue:problem presented',
        rule: 'cue:law',
        application: 'cue:in this case',
        conclusion: 'cue:therefore',
      },
    });
  });

  it('does not count words that merely contain a cue (tissue, bylaw, reapplication)', () => {
    expect(verifyIrac('A tissue sample, a bylaw, a reapplication, issues, rules, questionable, holdings.')).toEqual({
      verified: false,
      score: 0,
      missing_steps: ['issue', 'rule', 'application', 'conclusion'],
      mechanism: NONE,
    });
  });

  it('takes "article <n>" with a number or a Roman numeral, not "article" alone', () => {
    expect(verifyIrac('Under Article 5(1) of the treaty').mechanism.rule).toBe('cue:article <n>');
    expect(verifyIrac('Under Article IV of the constitution').mechanism.rule).toBe('cue:article <n>');
    expect(verifyIrac('This article did not say').mechanism.rule).toBeNull();
    expect(verifyIrac('A newspaper article about it').score).toBe(0);
  });

  it('reports the earliest cue of a step', () => {
    expect(verifyIrac('We apply the statute; the rule is old.').mechanism.rule).toBe('cue:statute');
  });

  it('scores partial traces and lists the missing steps in IRAC order', () => {
    expect(verifyIrac('The question is simple. Therefore, no.')).toEqual({
      verified: false,
      score: 0.5,
      missing_steps: ['rule', 'application'],
      mechanism: { issue: 'cue:question', rule: null, application: null, conclusion: 'cue:therefore' },
    });
  });

  it('scores an empty trace 0', () => {
    expect(verifyIrac('')).toEqual({
      verified: false,
      score: 0,
      missing_steps: ['issue', 'rule', 'application', 'conclusion'],
      mechanism: NONE,
    });
  });
});

describe('IRAC by structure (headings)', () => {
  it('recognises markdown, enumerated, bold and colon headings, including plural section names', () => {
    const trace = [
      '## Questions Presented',
      'Whether X owes Y.',
      'Rules: see s. 2.',
      'III. Analysis',
      'X did.',
      '**Conclusions**',
      'X owes Y.',
    ].join('\n');
    expect(verifyIrac(trace)).toEqual({
      verified: true,
      score: 1,
      missing_steps: [],
      mechanism: { issue: 'heading', rule: 'heading', application: 'heading', conclusion: 'heading' },
    });
  });

  it('prefers a heading over a cue for the same step', () => {
    const r = verifyIrac('Issue: whether the rule applies\nRule — the law\nApplication\nthe facts fit\nHolding: yes');
    expect(r.mechanism).toEqual({ issue: 'heading', rule: 'heading', application: 'heading', conclusion: 'heading' });
  });

  it('does not take a sentence that starts with a section word for a heading', () => {
    // "Rules of thumb …" is prose: no separator, text follows; "rules" is not itself a cue.
    expect(verifyIrac('Rules of thumb matter.').mechanism.rule).toBeNull();
  });
});

describe('milestones', () => {
  it('reports the rate and the missed milestones in order', () => {
    expect(
      verifyMilestones('We filed the complaint, then served the defendant.', [
        'filed the complaint',
        'served',
        'trial',
        'judgment',
      ]),
    ).toEqual({
      verified: false,
      process_rate: 0.5,
      missed_milestones: ['trial', 'judgment'],
    });
  });

  it('verifies when every milestone is present (case-insensitive)', () => {
    expect(verifyMilestones('INTAKE done. Review DONE. Sign-off.', ['intake', 'review', 'sign-off'])).toEqual({
      verified: true,
      process_rate: 1,
      missed_milestones: [],
    });
  });

  it('matches whole words only', () => {
    expect(verifyMilestones('The reviewer signed.', ['review', 'sign'])).toEqual({
      verified: false,
      process_rate: 0,
      missed_milestones: ['review', 'sign'],
    });
  });

  it('escapes punctuation and matches it literally', () => {
    const trace = 'Form I-9 (section 2) checked; paid $100.00 + tax.';
    expect(verifyMilestones(trace, ['form i-9', '(section 2)', '$100.00', '+ tax', 'a.b'])).toEqual({
      verified: false,
      process_rate: 0.8,
      missed_milestones: ['a.b'],
    });
    expect(milestoneRegex('$100.00').test('paid $100x00')).toBe(false);
  });

  it('lets internal whitespace vary', () => {
    expect(verifyMilestones('step\n  one', ['step one']).verified).toBe(true);
  });

  it('refuses an empty milestone list', () => {
    expect(() => verifyMilestones('x', [])).toThrow(RangeError);
  });
});

describe('processRequestSchema / validateProcessRequest', () => {
  it('defaults mode to irac and ignores unknown keys', () => {
    expect(processRequestSchema.parse({ trace: 't', extra: 1 })).toEqual({ trace: 't', mode: 'irac' });
  });

  it('runs the requested mode', () => {
    const v = validateProcessRequest({ trace: 'a b', mode: 'milestones', milestones: ['a', 'c'] });
    if (!v.ok) throw new Error(v.detail);
    expect(verifyProcess(v.value)).toEqual({ verified: false, process_rate: 0.5, missed_milestones: ['c'] });
    const w = validateProcessRequest({ trace: 'Therefore.' });
    if (!w.ok) throw new Error(w.detail);
    expect(verifyProcess(w.value)).toEqual({
      verified: false,
      score: 0.25,
      missing_steps: ['issue', 'rule', 'application'],
      mechanism: { issue: null, rule: null, application: null, conclusion: 'cue:therefore' },
    });
  });

  it.each([
    [{ trace: 't', mode: 'IRAC' }, "mode must be 'irac' or 'milestones'"],
    [{ trace: 't', mode: 'steps' }, "mode must be 'irac' or 'milestones'"],
    [{ trace: 't', mode: 'milestones' }, "milestones is required when mode is 'milestones'"],
    [{ trace: 't', mode: 'milestones', milestones: [] }, 'milestones must contain at least one milestone'],
    [{ trace: 't', mode: 'milestones', milestones: ['a', '  '] }, 'milestones[1] must not be blank'],
    [{ trace: 't', mode: 'milestones', milestones: 'a' }, 'milestones must be an array of strings'],
    [{ trace: 't', mode: 'milestones', milestones: ['a', 2] }, 'every milestone must be a string'],
    [{ mode: 'irac' }, 'trace is required'],
    [{ trace: 42 }, 'trace must be a string'],
    [null, 'request body must be a JSON object'],
  ])('400 detail for %j', (body, detail) => {
    expect(validateProcessRequest(body)).toEqual({ ok: false, detail });
  });
});
