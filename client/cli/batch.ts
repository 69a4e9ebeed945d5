// `svc batch`: reads JSON lines, submits them as batch jobs of at most `chunkSize` items (fewer
// when the plan's 400 names a smaller batch size), shows a live progress bar from the jobs'
// counters that is cleared before any result is written, then writes the results in input order:
// a table on the terminal, one JSON document with --json, JSON Lines with --jsonl or to --out.
import { createWriteStream, type WriteStream } from 'node:fs';
import cliProgress from 'cli-progress';
import { SvcApiError, type SvcClient, type BatchItemInput, type BatchJob } from '../index.js';
import { batchOutcome, type Outcome } from '../outcome.js';
import { InputError, OUTCOME_EXIT, worstOutcome } from './exit-codes.js';
import { excerpt, table, verdictText, type Io } from './output.js';

export interface BatchOptions {
  source: string;
  out?: string;
  json: boolean;
  chunkSize: number;
  pollMs: number;
  waitTimeoutMs: number;
  progress: boolean;
  /** JSON Lines on stdout (one object per item) instead of the table. */
  jsonl: boolean;
  verbose: boolean;
  /** The X-Workflow-Id of the last answer (for --verbose). */
  workflowId: () => string | undefined;
  readInput: (source: string) => string;
}

const ITEM_TYPES = ['natural_language', 'logic', 'math', 'code', 'fact', 'sql'];

/** Each non-blank line is {query, type?, params?}; anything else is refused before submitting. */
export function parseItems(text: string): { items: BatchItemInput[]; lines: number[] } {
  const items: BatchItemInput[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (err) {
      throw new InputError(`line ${i + 1}: not JSON (${(err as Error).message})`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new InputError(`line ${i + 1}: expected a JSON object`);
    const o = v as Record<string, unknown>;
    if (typeof o.query !== 'string') throw new InputError(`line ${i + 1}: 'query' must be a string`);
    if (o.type !== undefined && !ITEM_TYPES.includes(o.type as string))
      throw new InputError(`line ${i + 1}: 'type' must be one of ${ITEM_TYPES.join(', ')}`);
    if (o.params !== undefined && (typeof o.params !== 'object' || o.params === null || Array.isArray(o.params)))
      throw new InputError(`line ${i + 1}: 'params' must be an object`);
    items.push({
      query: o.query,
      type: o.type as BatchItemInput['type'],
      params: o.params as Record<string, unknown> | undefined,
    });
    lines.push(i + 1);
  });
  if (items.length === 0) throw new InputError('the items file has no items');
  return { items, lines };
}

const done = (j: BatchJob) =>
  (j.completed_items ?? j.items.filter((i) => i.status === 'completed').length) +
  (j.failed_items ?? j.items.filter((i) => i.status === 'failed').length);

/** The plan's batch size named by the service's 400 (contract/batch.ts planBatchDetail), if it is that refusal. */
export function planBatchLimit(err: unknown): number | null {
  if (!(err instanceof SvcApiError) || err.status !== 400) return null;
  const m = /exceeds the (\S+) plan's batch size of (\d+) items/.exec(err.detail);
  const n = m ? Number(m[2]) : NaN;
  return Number.isInteger(n) && n >= 1 ? n : null;
}

interface ResultRow {
  line: number;
  job_id: string;
  outcome: Outcome;
  [k: string]: unknown;
}

export async function runBatch(client: SvcClient, io: Io, o: BatchOptions): Promise<number> {
  const { items, lines } = parseItems(o.readInput(o.source));
  // The bar is cleared when it stops, before anything else is written: results never share its line.
  const bar = o.progress
    ? new cliProgress.SingleBar(
        {
          stream: io.stderr,
          format: 'batch [{bar}] {percentage}% | {value}/{total} items | {failed} failed',
          hideCursor: true,
          clearOnComplete: true,
          // Never switch the terminal's line wrapping off (it stayed off after an interrupted run):
          // the bar is cut to the terminal's width instead.
          linewrap: true,
          gracefulExit: true,
          noTTYOutput: !io.stderrIsTTY,
          notTTYSchedule: 1000,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const notice = (text: string) => {
    // A notice while the bar runs would be drawn over: the bar is redrawn after it.
    if (bar && io.stderrIsTTY) io.stderr.write('\r\x1b[2K');
    io.err(text);
  };
  bar?.start(items.length, 0, { failed: 0 });
  const rows: ResultRow[] = [];
  let chunkSize = o.chunkSize;
  let failedBefore = 0;
  try {
    for (let start = 0; start < items.length;) {
      const chunk = items.slice(start, start + chunkSize);
      let submitted: BatchJob;
      try {
        submitted = await client.submitBatch(chunk);
      } catch (err) {
        // The plan takes fewer items per batch than this chunk: split to the size the 400 names.
        const limit = planBatchLimit(err);
        if (limit === null || limit >= chunk.length) throw err;
        chunkSize = limit;
        notice(`svc: the plan takes at most ${limit} items per batch; sending chunks of ${limit}`);
        continue;
      }
      if (o.verbose)
        notice(
          `svc: job ${submitted.job_id}: items ${start + 1}-${start + chunk.length}${o.workflowId() ? `, workflow ${o.workflowId()}` : ''}`,
        );
      const before = start;
      const job = await client.waitForBatch(submitted, {
        intervalMs: o.pollMs,
        timeoutMs: o.waitTimeoutMs,
        onProgress: (j) => bar?.update(before + done(j), { failed: failedBefore + (j.failed_items ?? 0) }),
      });
      const byIndex = new Map(job.items.map((it) => [Number(it.id.slice(it.id.lastIndexOf('-') + 1)), it]));
      chunk.forEach((input, k) => {
        const item = byIndex.get(k);
        // An item the job does not report is not a pass.
        const outcome: Outcome = item ? batchOutcome(item) : 'error';
        rows.push({
          line: lines[start + k] as number,
          job_id: job.job_id,
          outcome,
          ...(item ?? { query: input.query, type: input.type, status: 'missing' }),
        });
      });
      start += chunk.length;
      failedBefore += job.failed_items ?? 0;
      bar?.update(start, { failed: failedBefore });
    }
  } finally {
    bar?.stop();
  }
  const counts = rows.reduce<Record<string, number>>(
    (acc, x) => ((acc[x.outcome] = (acc[x.outcome] ?? 0) + 1), acc),
    {},
  );
  const summary = `${rows.length} items: ${['verified', 'not_verified', 'blocked', 'error'].map((k) => `${counts[k] ?? 0} ${k.replace('_', ' ')}`).join(', ')}`;
  if (o.out) {
    const sink: WriteStream = createWriteStream(o.out);
    for (const r of rows) sink.write(`${JSON.stringify(r)}\n`);
    await new Promise<void>((r, j) => sink.end((err?: Error | null) => (err ? j(err) : r())));
    // With --json the caller reads machine output only: the summary goes to stderr.
    if (o.json) io.err(summary);
    else io.out(summary);
  } else if (o.jsonl) {
    // JSON Lines on stdout (one object per item); the summary on stderr keeps stdout pure.
    for (const r of rows) io.out(JSON.stringify(r));
    io.err(summary);
  } else if (o.json) {
    // One JSON document, as --help says.
    const summaryDoc = {
      total: rows.length,
      verified: counts.verified ?? 0,
      not_verified: counts.not_verified ?? 0,
      blocked: counts.blocked ?? 0,
      error: counts.error ?? 0,
    };
    io.out(JSON.stringify({ items: rows, summary: summaryDoc }));
  } else {
    io.out(resultTable(rows));
    io.out(summary);
  }
  return OUTCOME_EXIT[worstOutcome(rows.map((r) => r.outcome))];
}

/** The per-item table on the terminal: input line, outcome, verdict (admission first), type, query. */
export function resultTable(rows: ResultRow[]): string {
  const OUTCOME: Record<Outcome, string> = {
    verified: 'verified',
    not_verified: 'not verified',
    blocked: 'BLOCKED',
    error: 'error',
  };
  const body = rows.map((r) => {
    const type = typeof r.type === 'string' ? r.type : 'natural_language';
    const verdict =
      r.status === 'completed'
        ? verdictText(type, r.result, r.outcome)
        : r.status === 'failed'
          ? `failed${typeof r.error === 'string' ? `: ${excerpt(r.error, 40)}` : ''}`
          : 'missing from the job';
    return [String(r.line), OUTCOME[r.outcome], verdict, type, excerpt(typeof r.query === 'string' ? r.query : '', 48)];
  });
  return table([['LINE', 'OUTCOME', 'VERDICT', 'TYPE', 'QUERY'], ...body]);
}
