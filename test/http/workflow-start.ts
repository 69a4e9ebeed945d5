// The start time of a workflow run as its history records it (session 23): the time a run that
// asks for time-ordered ids (`time_ordered_ids`) puts in front of its audit entry and attestation
// ids (workflowInfo().startTime, core/time-ordered-id.ts). Read from Temporal, not from the ids,
// so that a row comparing the two proves the ids carry the run's own start time.
import { afterAll } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { stackEnv } from './helpers.js';

let conn: Promise<Connection> | null = null;

/** One connection per test file's process, closed with closeWorkflowStart(). */
function connection(): Promise<Connection> {
  conn ??= Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
  return conn;
}

/** The run's start time in epoch ms: the WorkflowExecutionStarted event's time (what workflowInfo().startTime reads). */
export async function workflowStartMs(workflowId: string): Promise<number> {
  const history = await new Client({ connection: await connection() }).workflow.getHandle(workflowId).fetchHistory();
  const started = history.events?.[0];
  const t = started?.eventTime;
  if (!started?.workflowExecutionStartedEventAttributes || !t) throw new Error(`no start event for ${workflowId}`);
  // Whole milliseconds, as the SDK's own conversion of the activation's start time.
  return Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

export async function closeWorkflowStart(): Promise<void> {
  const c = conn;
  conn = null;
  if (c) await (await c).close();
}

// Every file that imports this closes its connection when it ends.
afterAll(closeWorkflowStart);
