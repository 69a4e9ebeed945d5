// `svc batch`: reads JSON lines, submits them as batch jobs of at most `chunkSize` items, shows a
// live progress bar from the jobs' counters, and writes one JSON line per item, in input order.
import { createWriteStream, type WriteStream } from 'node:fs';
import cliProgress from 'cli-progress';
import type { SvcClient, BatchItemInput, BatchJob } from '../index.js';
import { batchOutcome, type Outcome } from '../outcome.js';
import { InputError, OUTCOME_EXIT, worstOutcome } from './exit-codes.js';
import type { Io } from './output.js';

export interface BatchOptions {
  source: string;
  out?: string;
  json: boolean;
  chunkSize: number;
  pollMs: number;
  waitTimeoutMs: number;
  progress: boolean;
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
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InputError(`line ${i + 1}: expected a JSON object`);
    const o = v as Record<string, unknown>;
    if (typeof o.query !== 'string') throw new InputError(`line ${i + 1}: 'query' must be a string`);
    if (o.type !== undefined && !ITEM_TYPES.includes(o.type as string)) throw new InputError(`line ${i + 1}: 'type' must be one of ${ITEM_TYPES.join(', ')}`);
    if (o.params !== undefined && (typeof o.params !== 'object' || o.params === null || Array.isArray(o.params))) throw new InputError(`line ${i + 1}: 'params' must be an object`);
    items.push({ query: o.query, type: o.type as BatchItemInput['type'], params: o.params as Record<string, unknown> | undefined });
    lines.push(i + 1);
  });
  if (items.length === 0) throw new InputError('the items file has no items');
  return { items, lines };
}

const done = (j: BatchJob) => (j.completed_items ?? j.items.filter((i) => i.status === 'completed').length) + (j.failed_items ?? j.items.filter((i) => i.status === 'failed').length);

export async function runBatch(client: SvcClient, io: Io, o: BatchOptions): Promise<number> {
  const { items, lines } = parseItems(o.readInput(o.source));
  const bar = o.progress
    ? new cliProgress.SingleBar(
        { stream: io.stderr, format: 'batch [{bar}] {percentage}% | {value}/{total} items | {failed} failed', hideCursor: true, noTTYOutput: !io.stderrIsTTY, notTTYSchedule: 1000 },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(items.length, 0, { failed: 0 });
  const sink: WriteStream | null = o.out ? createWriteStream(o.out) : null;
  const write = (line: string) => (sink ? sink.write(`${line}\n`) : io.out(line));
  const outcomes: Outcome[] = [];
  let before = 0;
  let failedBefore = 0;
  try {
    for (let start = 0; start < items.length; start += o.chunkSize) {
      const chunk = items.slice(start, start + o.chunkSize);
      const submitted = await client.submitBatch(chunk);
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
        outcomes.push(outcome);
        write(JSON.stringify({ line: lines[start + k], job_id: job.job_id, outcome, ...(item ?? { query: input.query, type: input.type, status: 'missing' }) }));
      });
      before += chunk.length;
      failedBefore += job.failed_items ?? 0;
      bar?.update(before, { failed: failedBefore });
    }
  } finally {
    bar?.stop();
    if (sink) await new Promise<void>((r, j) => sink.end((err?: Error | null) => (err ? j(err) : r())));
  }
  const counts = outcomes.reduce<Record<string, number>>((acc, x) => ((acc[x] = (acc[x] ?? 0) + 1), acc), {});
  const summary = `${outcomes.length} items: ${['verified', 'not_verified', 'blocked', 'error'].map((k) => `${counts[k] ?? 0} ${k.replace('_', ' ')}`).join(', ')}`;
  // With results on stdout, the summary goes to stderr so stdout stays pure JSON lines.
  if (o.out && !o.json) io.out(summary);
  else io.err(summary);
  return OUTCOME_EXIT[worstOutcome(outcomes)];
}
