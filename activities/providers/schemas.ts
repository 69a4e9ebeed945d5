// The shapes a model must answer with. A model's answer is untrusted input: it is parsed
// against these schemas (unknown keys dropped, known ones strict), and anything else is a
// `malformed_answer` ProviderError.
import { z } from 'zod';

const text = (max: number) => z.string().max(max);

/** Arithmetic translation (/verify/natural_language, batch natural_language items, consensus). */
export const arithmeticTranslationSchema = z.object({
  is_math_query: z.boolean(),
  expression: text(2000).nullable(),
  claimed_answer: z.number().finite().nullable(),
  reasoning: text(4000),
  confidence: z.number().min(0).max(1),
});
export type ArithmeticTranslation = z.infer<typeof arithmeticTranslationSchema>;

/** Natural language to the logic DSL (/verify/logic). */
export const logicTranslationSchema = z.object({
  is_logic_query: z.boolean(),
  dsl: text(10_000).nullable(),
  reasoning: text(4000),
});
export type LogicTranslation = z.infer<typeof logicTranslationSchema>;

/** Entailment judgement of a claim against a context (/verify/fact). */
export const entailmentSchema = z.object({
  label: z.enum(['entailed', 'contradicted', 'neutral']),
  quote: text(4000).nullable(),
  reasoning: text(4000),
});
export type EntailmentJudgement = z.infer<typeof entailmentSchema>;

/** A vision model's reading of an image (/verify/image); reported, never deciding. */
export const imageDescriptionSchema = z.object({
  description: text(4000),
});
export type ImageDescription = z.infer<typeof imageDescriptionSchema>;
