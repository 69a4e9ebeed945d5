// Patch decisions a workflow would make right after its input check, made before the check instead
// (session 21; docs/workflows.md, "Session 21: a patch decided after the input check").
//
// Why: `patched()` on replay answers true only once the core has told the workflow that the marker
// is in history, and the core tells it a task at a time. The input check is a local activity. When
// a query rides the run's first workflow task and is answered while that activity resolves, the core
// completes the task with the activity's marker but without what the workflow then did (it had not
// seen the result yet). Those commands, the patch marker among them, land in the next task. A
// replay resolves the activity from its marker one task earlier, so a `patched()` after the check
// comes before the core has told it about the marker: false, the legacy branch, no command, and
// "[TMPRL1100] Nondeterminism error: Non-deprecated patch marker encountered ... but there is no
// corresponding change command!" (the run's task then fails on every replay).
//
// Decided before the check, in the run's first activation, the marker is recorded in the first task
// and known there on every replay. Histories written before (the marker after the check's) still
// replay: when they were written in one task, the marker is known in the first activation too; when
// the race split them, `settle` waits for the next task's notification, told apart from a legacy run
// by the legacy branch's own marker.
import { condition, patched, workflowInfo } from '@temporalio/workflow';

/** batchWorkflow: jobs started before result documents run the legacy path (workflows/batch.ts). */
export const BATCH_RESULT_DOCS = 'batch-result-docs';
/** The legacy path's first decision: math items in chunks (its first command). */
export const BATCH_MATH_CHUNKS = 'batch-math-chunks';
/** approvalWorkflow: a decision signal delivered with the first task is counted from 0. */
export const APPROVAL_SIGNAL_BEFORE_FIRST_WAIT = 'approval-signal-before-first-wait';

export interface EarlyPatches {
  /** Before the input check's local activity: the decisions, in the run's first activation. */
  decide(): void;
  /** After it: on replay of a history whose marker came in a later task, wait for that task's notification. */
  settle(): Promise<void>;
}

const NONE: EarlyPatches = { decide: () => undefined, settle: async () => undefined };

/** The early decisions of a run of `workflowType` with `args`, or none. */
export function earlyPatches(workflowType: string, args: readonly unknown[]): EarlyPatches {
  const first = args[0] as { one_step_job?: unknown } | null | undefined;
  if (
    workflowType === 'batchWorkflow' &&
    !(typeof first === 'object' && first !== null && first.one_step_job === true)
  ) {
    // The same decisions batchWorkflow makes (a one-step job makes none), in the same order; the SDK
    // keeps each decision, so the workflow's own calls later get the same answer and send nothing.
    const decided = () => patched(BATCH_RESULT_DOCS) || patched(BATCH_MATH_CHUNKS);
    let known = false;
    return {
      decide() {
        known = decided();
      },
      async settle() {
        // Live, patched() decides (true) at once. On replay, neither marker known in the first task
        // means the history's next task holds one of them: a legacy run records batch-math-chunks in
        // the task that records the check's marker unless the race split it the same way. Runs from
        // before the input check never get here (no check, no local activity).
        if (known || !workflowInfo().unsafe.isReplaying) return;
        await condition(decided);
      },
    };
  }
  if (workflowType === 'approvalWorkflow') {
    // No legacy marker tells a split history from one written before the patch: no waiting here
    // (a split history written before session 21 is the one left; docs/workflows.md).
    return { decide: () => void patched(APPROVAL_SIGNAL_BEFORE_FIRST_WAIT), settle: async () => undefined };
  }
  return NONE;
}
