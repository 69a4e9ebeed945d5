// The workflows the API starts, by type only: `WorkflowName` is a key of workflows/index.ts's
// exports, so a start names a workflow that exists, and its arguments and result are typed by
// that function's signature (Temporal's start-by-reference, without loading workflow code into
// the API process: the import is erased at run time).
import type { WorkflowResultType } from '@temporalio/common';
import type * as workflows from '../workflows/index.js';

export type Workflows = typeof workflows;
export type WorkflowName = { [K in keyof Workflows]: K extends `${string}Workflow` ? K : never }[keyof Workflows];
export type WorkflowArgs<N extends WorkflowName> = Parameters<Workflows[N]>;
export type WorkflowResult<N extends WorkflowName> = WorkflowResultType<Workflows[N]>;
