// POST /verify/process engine: does a reasoning trace follow a process?
//
// mode "irac" (default): the four IRAC steps — issue, rule, application, conclusion — are
// found by the cue phrases of the reference notes (word-bounded, case-insensitive) or by
// structure: a heading for the step (`## Issue`, `Rule:` at the start of a line,
// `I. Issue`, `**Conclusion**`, a line that is just `Analysis`). score = found / 4;
// verified when all four are found. `mechanism` says, per step, how it was found:
// "heading", "cue:<phrase>" (the phrase as listed in the notes), or null when missing.
//
// mode "milestones": each caller milestone must occur in the trace (word-bounded where the
// milestone starts/ends with a letter or digit, case-insensitive, internal whitespace
// flexible, every other character literal). process_rate = found / total; verified when
// every milestone is found.
import { z } from 'zod';

export const IRAC_STEPS = ['issue', 'rule', 'application', 'conclusion'] as const;
export type IracStep = (typeof IRAC_STEPS)[number];

/** Cue phrases exactly as the reference notes list them; `article <n>` takes a number. */
export const IRAC_CUES: Record<IracStep, readonly string[]> = {
  issue: ['issue', 'question', 'problem presented'],
  rule: ['rule', 'law', 'statute', 'regulation', 'article <n>'],
  application: ['application', 'analysis', 'applying', 'in this case'],
  conclusion: ['conclusion', 'holding', 'verdict', 'therefore'],
};

/** Section names that make a heading for each step (the cues plus their usual heading forms). */
const HEADING_NAMES: Record<IracStep, readonly string[]> = {
  issue: ['issue', 'issues', 'question', 'questions', 'question presented', 'questions presented', 'problem presented', 'legal issue', 'legal issues'],
  rule: ['rule', 'rules', 'law', 'applicable law', 'governing law', 'relevant law', 'rule of law', 'legal rule', 'statute', 'statutes', 'regulation', 'regulations'],
  application: ['application', 'analysis', 'applying', 'application of law', 'application of the law', 'application of the rule', 'application and analysis'],
  conclusion: ['conclusion', 'conclusions', 'holding', 'verdict'],
};

export const PROCESS_LIMITS = { maxMilestones: 1_000, maxMilestoneLength: 1_000 } as const;

// Word boundary = not next to a letter, digit or underscore (Unicode-aware, like Python's \b).
const WB_BEFORE = '(?<![\\p{L}\\p{N}_])';
const WB_AFTER = '(?![\\p{L}\\p{N}_])';
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Roman numerals I–MMMCMXCIX (non-empty), for `Article IV`. */
const ROMAN = '(?=[ivxlcdm])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})';

function phrasePattern(phrase: string): string {
  if (phrase === 'article <n>') return `article\\s+(?:\\d+[a-z]?|${ROMAN})`;
  return phrase.split(/\s+/).map(escapeRegex).join('\\s+');
}

const CUE_REGEXES: Record<IracStep, Array<{ cue: string; re: RegExp }>> = Object.fromEntries(
  IRAC_STEPS.map((step) => [
    step,
    IRAC_CUES[step].map((cue) => ({ cue, re: new RegExp(`${WB_BEFORE}${phrasePattern(cue)}${WB_AFTER}`, 'iu') })),
  ]),
) as Record<IracStep, Array<{ cue: string; re: RegExp }>>;

// A heading line: optional markdown #'s, optional enumeration (I. / 1. / A) / (a)), optional
// bold, the section name, then a separator (: — – - .) or the end of the line.
const ENUM = '(?:\\(?(?:[ivxlcdm]+|\\d{1,3}|[a-z])[.)]\\s+)';
function headingRegex(step: IracStep): RegExp {
  const names = [...HEADING_NAMES[step]].sort((a, b) => b.length - a.length).map(phrasePattern).join('|');
  return new RegExp(
    `^[ \\t]{0,3}(#{1,6}[ \\t]*)?(${ENUM})?(\\*\\*|__)?[ \\t]*(?:${names})${WB_AFTER}[ \\t]*(?:\\*\\*|__)?[ \\t]*([:\\u2014\\u2013]|[.-](?=\\s|$))?(.*)$`,
    'iu',
  );
}
const HEADING_REGEXES: Record<IracStep, RegExp> = Object.fromEntries(IRAC_STEPS.map((s) => [s, headingRegex(s)])) as Record<IracStep, RegExp>;

function hasHeading(lines: string[], step: IracStep): boolean {
  const re = HEADING_REGEXES[step];
  return lines.some((line) => {
    const m = re.exec(line);
    if (!m) return false;
    const [, hashes, enumeration, bold, separator, rest] = m;
    // Marked as a heading, or the name stands alone on its line.
    return Boolean(hashes || enumeration || bold || separator) || rest.trim().length === 0;
  });
}

export type IracMechanism = Record<IracStep, string | null>;

export interface IracResult {
  verified: boolean;
  score: number;
  missing_steps: IracStep[];
  mechanism: IracMechanism;
}

export interface MilestonesResult {
  verified: boolean;
  process_rate: number;
  missed_milestones: string[];
}

export function verifyIrac(trace: string): IracResult {
  const lines = trace.split(/\r\n|\r|\n/);
  const mechanism = {} as IracMechanism;
  const missing: IracStep[] = [];
  for (const step of IRAC_STEPS) {
    if (hasHeading(lines, step)) {
      mechanism[step] = 'heading';
      continue;
    }
    // The earliest cue in the trace names the mechanism.
    let best: { cue: string; index: number } | null = null;
    for (const { cue, re } of CUE_REGEXES[step]) {
      const m = re.exec(trace);
      if (m && (best === null || m.index < best.index)) best = { cue, index: m.index };
    }
    mechanism[step] = best ? `cue:${best.cue}` : null;
    if (!best) missing.push(step);
  }
  const found = IRAC_STEPS.length - missing.length;
  return { verified: missing.length === 0, score: found / IRAC_STEPS.length, missing_steps: missing, mechanism };
}

/** The regular expression a milestone is matched with. */
export function milestoneRegex(milestone: string): RegExp {
  const text = milestone.trim();
  const body = text.split(/\s+/).map(escapeRegex).join('\\s+');
  const before = /^[\p{L}\p{N}_]/u.test(text) ? WB_BEFORE : '';
  const after = /[\p{L}\p{N}_]$/u.test(text) ? WB_AFTER : '';
  return new RegExp(`${before}${body}${after}`, 'iu');
}

export function verifyMilestones(trace: string, milestones: readonly string[]): MilestonesResult {
  if (milestones.length === 0) throw new RangeError('at least one milestone is required');
  const missed = milestones.filter((m) => !milestoneRegex(m).test(trace));
  const found = milestones.length - missed.length;
  return { verified: missed.length === 0, process_rate: found / milestones.length, missed_milestones: missed };
}

// ---- request -------------------------------------------------------------------------------

const requiredString = (field: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `${field} is required` : `${field} must be a string`;

export const processRequestSchema = z
  .object({
    trace: z.string({ error: requiredString('trace') }),
    mode: z
      .enum(['irac', 'milestones'], { error: () => "mode must be 'irac' or 'milestones'" })
      .optional()
      .transform((m) => m ?? 'irac'),
    milestones: z
      .array(z.string({ error: 'every milestone must be a string' }), { error: 'milestones must be an array of strings' })
      .optional(),
  })
  .superRefine((value, ctx) => {
    if (value.mode !== 'milestones') return;
    const list = value.milestones;
    if (list === undefined) {
      ctx.addIssue({ code: 'custom', path: ['milestones'], message: "milestones is required when mode is 'milestones'" });
      return;
    }
    if (list.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['milestones'], message: 'milestones must contain at least one milestone' });
    }
    if (list.length > PROCESS_LIMITS.maxMilestones) {
      ctx.addIssue({ code: 'custom', path: ['milestones'], message: `milestones may contain at most ${PROCESS_LIMITS.maxMilestones} entries` });
    }
    list.forEach((m, i) => {
      if (m.trim().length === 0) ctx.addIssue({ code: 'custom', path: ['milestones', i], message: `milestones[${i}] must not be blank` });
      if (m.length > PROCESS_LIMITS.maxMilestoneLength) {
        ctx.addIssue({ code: 'custom', path: ['milestones', i], message: `milestones[${i}] is longer than ${PROCESS_LIMITS.maxMilestoneLength} characters` });
      }
    });
  });

export type ProcessRequestInput = z.input<typeof processRequestSchema>;
export type ProcessRequest = z.output<typeof processRequestSchema>;

/** Validates a body; `detail` is the message for an HTTP 400 `{detail}` response. */
export function validateProcessRequest(body: unknown): { ok: true; value: ProcessRequest } | { ok: false; detail: string } {
  const parsed = processRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const detail = parsed.error.issues
    .map((i) => (i.path.length === 0 && i.code === 'invalid_type' ? 'request body must be a JSON object' : i.message))
    .join('; ');
  return { ok: false, detail };
}

/** Runs the requested mode. Call with a validated request (processRequestSchema). */
export function verifyProcess(req: ProcessRequest): IracResult | MilestonesResult {
  if (req.mode === 'milestones') return verifyMilestones(req.trace, req.milestones ?? []);
  return verifyIrac(req.trace);
}
