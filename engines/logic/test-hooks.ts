// Fault injection for tests only: lets a test tamper with the model Z3 returned before the
// independent evaluator checks it, to prove that a disagreement fails closed. Never set in
// production code paths.

export type ModelTamperHook = (model: Record<string, string>) => Record<string, string>;

let tamperHook: ModelTamperHook | null = null;

export function setModelTamperHookForTests(hook: ModelTamperHook | null): void {
  tamperHook = hook;
}

export function getModelTamperHook(): ModelTamperHook | null {
  return tamperHook;
}
