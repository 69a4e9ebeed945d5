// The workflows the API starts, by reference. `workflows.verifyWorkflow` has the type of
// workflows/verify.ts's `verifyWorkflow` (a type-only import of workflows/index.ts: go-to-definition
// lands on the workflow), and the gateway starts it as Temporal's samples start theirs,
// `client.workflow.start(order, …)`: the client takes the function's name as the workflow type.
// The API never loads workflow code (test/unit/api-imports.test.ts): at run time each reference
// is a named stub, made on first use, that throws if called (a workflow runs only on a worker).
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import type * as workflowModule from '../workflows/index.js';

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
