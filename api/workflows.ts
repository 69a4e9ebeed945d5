// The workflows the API starts, by reference. `workflows.verifyWorkflow` has the type of
// workflows/verify.ts's `verifyWorkflow` (a type-only import of workflows/index.ts: go-to-definition
// lands on the workflow), and the gateway starts it as Temporal's samples start theirs,
// `client.workflow.start(order, …)`: the client takes the function's name as the workflow type.
// The API never loads workflow code (test/unit/api-imports.test.ts): at run time each reference
// is a named stub, made on first use, that throws if called (a workflow runs only on a worker).
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import type { EngineName } from '../core/engines.js';
import type { EngineResult } from '../core/verification-io.js';
import type * as workflowModule from '../workflows/index.js';
import type { ProviderWorkflowInput } from '../workflows/provider-verify.js';

export type Workflows = typeof workflowModule;
export type WorkflowName = { [K in keyof Workflows]: K extends `${string}Workflow` ? K : never }[keyof Workflows];
/** A workflow the API can start: one of workflows/index.ts's exported workflow functions. */
export type StartableWorkflow = Workflows[WorkflowName];
export type WorkflowResult<W extends Workflow> = WorkflowResultType<W>;

const stubs = new Map<string, Workflow>();

function stub(name: string): Workflow {
  let fn = stubs.get(name);
  if (!fn) {
    fn = () => Promise.reject(new Error(`${name} runs on a worker: start it through TemporalGateway`));
    Object.defineProperty(fn, 'name', { value: name });
    stubs.set(name, fn);
  }
  return fn;
}

/** The API's references to the workflows of workflows/index.ts, typed by their functions (the same object each time). */
export const workflows = new Proxy({} as Pick<Workflows, WorkflowName>, {
  get: (_target, name) => (typeof name === 'string' && name.endsWith('Workflow') ? stub(name) : undefined),
});

/**
 * A verification workflow of engine E as the gateway starts it: what every run is sent (the
 * verifyWorkflow input and the provider step's deadline, which verifyWorkflow has no use for)
 * and the engine's typed result (core/verification-io.ts `EngineIO`).
 */
export type VerificationWorkflow<E extends EngineName> = (req: ProviderWorkflowInput<E>) => Promise<EngineResult<E>>;

/**
 * The workflow each engine's route starts, by reference (go-to-definition: workflows/index.ts,
 * then the workflow). Typed per engine: a workflow that cannot run an engine (verifyWorkflow for
 * natural language, which has a provider step first) or returns another result does not compile,
 * and `verificationWorkflows[engine]` has the engine's own signature, so the gateway needs no cast.
 */
export const verificationWorkflows: { readonly [E in EngineName]: VerificationWorkflow<E> } = {
  math: workflows.verifyWorkflow,
  logic: workflows.verifyWorkflow,
  code: workflows.verifyWorkflow,
  sql: workflows.verifyWorkflow,
  process: workflows.verifyWorkflow,
  rag: workflows.verifyWorkflow,
  consensus: workflows.verifyWorkflow,
  stats: workflows.verifyWorkflow,
  fact: workflows.verifyWorkflow,
  image: workflows.verifyWorkflow,
  natural_language: workflows.providerVerifyWorkflow,
};
