// Scripted activities for the workflow tier: each stub is registered under the activity name the
// workflows schedule (the names are the contract between a workflow and the worker; the real
// implementations are in activities/), records every call, and does what the test scripted for
// that run (by workflow id): fail its first attempts, fail with a failure type (retryable or
// not), outlast its deadline, or answer with a given value. Unscripted, it answers a default.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { CallLog, sleep } from '../harness.js';

export interface Script {
  /** Attempts 1..n fail (a plain Error: infrastructure, retryable); later attempts succeed. */
  failAttempts?: number;
  /** Every attempt fails with this ApplicationFailure type (retryable unless the policy names it). */
  failType?: string;
  /** Sleep before answering (to outlast a deadline). */
  sleepMs?: number;
  /** The answer; a function gets the input and the attempt. */
  result?: unknown | ((input: unknown, attempt: number) => unknown);
}

export type Defaults = Record<string, (input: unknown, attempt: number) => unknown>;

export class ScriptedActivities {
  readonly log = new CallLog();
  private readonly scripts = new Map<string, Script>();

  constructor(private readonly defaults: Defaults) {}

  /** Scripts `activity` for the run `workflowId`. */
  script(workflowId: string, activity: string, script: Script): this {
    this.scripts.set(`${workflowId}\0${activity}`, script);
    return this;
  }

  /** Attempts of `activity` in run `workflowId`. */
  attempts(workflowId: string, activity: string): number {
    return this.log.of(workflowId, activity).length;
  }

  /** The worker's activities: one stub per name in `defaults`. */
  activities(): Record<string, (input: unknown) => Promise<unknown>> {
    return Object.fromEntries(
      Object.entries(this.defaults).map(([name, fallback]) => [
        name,
        async (input: unknown): Promise<unknown> => {
          const info = Context.current().info;
          const workflowId = info.workflowExecution?.workflowId ?? '';
          this.log.add(name, input, workflowId);
          const s = this.scripts.get(`${workflowId}\0${name}`) ?? {};
          if (s.sleepMs) await sleep(s.sleepMs);
          if (s.failType)
            throw ApplicationFailure.create({ message: `${name} failed (${s.failType})`, type: s.failType });
          if (s.failAttempts !== undefined && info.attempt <= s.failAttempts) throw new Error('store unavailable');
          if (s.result !== undefined)
            return typeof s.result === 'function'
              ? (s.result as (i: unknown, a: number) => unknown)(input, info.attempt)
              : s.result;
          return fallback(input, info.attempt);
        },
      ]),
    );
  }
}

export const PROOF_REF = `sha256:${'ab'.repeat(32)}`;

/** Audit append: a log id per call, as activities/audit.ts answers. */
let auditSeq = 0;
export const appendAuditDefault = () => {
  auditSeq++;
  return { log_id: `log_${auditSeq}`, seq: auditSeq };
};
