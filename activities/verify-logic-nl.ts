// The natural-language path of /verify/logic, provider step (docs/natural-language.md): the
// injection screen, the provider's translation into the logic DSL, then the DSL compiler as
// the guard over the model's answer (a syntax error is ERROR; a policy violation, such as a
// string literal, is refused too: the model's output is malformed, so ERROR). The solve itself is the existing verifyLogicActivity.
import type { ProviderName } from '../core/providers-config.js';
import { screenText } from '../engines/nl/injection-screen.js';
import { compileLogicQuery, LogicInputError } from '../engines/logic/index.js';
import { providerFailure, translateLogic, type LogicTranslation } from './providers/index.js';
import type { VerifyActivityInput } from './types.js';

export type LogicTranslateOutcome =
  { ok: true; dsl: string; reasoning: string } | { ok: false; reason: string; message: string; blocked?: boolean };

export async function translateLogicQuery(input: {
  query: string;
  provider: ProviderName;
}): Promise<LogicTranslateOutcome> {
  const screen = screenText(input.query);
  if (screen.blocked)
    return { ok: false, blocked: true, reason: `prompt_injection:${screen.reason}`, message: screen.detail };
  let t: LogicTranslation;
  try {
    t = await translateLogic(input.provider, input.query);
  } catch (err) {
    const f = providerFailure(err);
    return { ok: false, reason: f.code, message: f.message };
  }
  if (!t.is_logic_query || t.dsl === null || t.dsl.trim() === '') {
    const why =
      input.provider === 'local'
        ? `${t.reasoning}. The local translator reads simple comparisons such as "x is greater than 5 and less than 10"; send the logic DSL (docs/logic-dsl.md) or configure an LLM provider.`
        : t.reasoning;
    return {
      ok: false,
      reason: 'not_translatable',
      message: why || 'The query could not be translated into the logic DSL.',
    };
  }
  const answerScreen = screenText(t.reasoning);
  if (answerScreen.blocked)
    return {
      ok: false,
      blocked: true,
      reason: `provider_answer_injection:${answerScreen.reason}`,
      message: `The provider's answer was refused. ${answerScreen.detail}`,
    };
  try {
    compileLogicQuery(t.dsl);
  } catch (err) {
    if (!(err instanceof LogicInputError)) throw err;
    // The model's output is malformed for the DSL (whatever the compiler's category): ERROR.
    return {
      ok: false,
      reason: 'invalid_translation',
      message: `The provider's DSL translation was refused by the logic compiler: ${err.message}`,
    };
  }
  return { ok: true, dsl: t.dsl, reasoning: t.reasoning };
}

export async function translateLogicActivity(
  req: VerifyActivityInput<{ query: string; provider: ProviderName }>,
): Promise<LogicTranslateOutcome> {
  return translateLogicQuery(req.input);
}
