// Records the replay fixtures of test/workflow/replay-patches-s21.test.ts with the workflow code of
// this checkout (docs/workflows.md): `npx tsx test/workflow/record-histories.ts <prefix>` writes
// test/fixtures/workflow-histories/<prefix>-*.json (a batch job on the item path and an approval,
// each plain and split by the first-task query race; a job as the API starts it) and prints each
// one's commands per workflow task. The s20-* fixtures were recorded so on 0a0720a.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import { ROOT } from '../../infra/stack.js';
import {
  approvalInput,
  batchInput,
  commandsByTask,
  historyToFixture,
  plainRun,
  raceRun,
  startRaceTier,
} from './replay-race.js';

async function main(prefix: string): Promise<void> {
  const dir = path.join(ROOT, 'test', 'fixtures', 'workflow-histories');
  mkdirSync(dir, { recursive: true });
  const save = (name: string, h: temporal.api.history.v1.IHistory) => {
    writeFileSync(path.join(dir, `${prefix}-${name}.json`), historyToFixture(h));
    console.log(name, JSON.stringify(commandsByTask(h)));
  };
  const tier = await startRaceTier();
  try {
    const id = (name: string) => `${prefix}-${name}`;
    save(
      'batch-split',
      (await raceRun(tier, 'batchWorkflow', id('batch-split'), batchInput('bj_split'), 'progress')).history,
    );
    save(
      'approval-split',
      (await raceRun(tier, 'approvalWorkflow', id('approval-split'), approvalInput(1), '__stack_trace')).history,
    );
    save('batch', await plainRun(tier, 'batchWorkflow', id('batch'), batchInput('bj_plain')));
    save(
      'batch-one-step',
      await plainRun(tier, 'batchWorkflow', id('batch-one-step'), { ...batchInput('bj_os'), one_step_job: true }),
    );
    save('approval', await plainRun(tier, 'approvalWorkflow', id('approval'), approvalInput(2)));
  } finally {
    await tier.stop();
  }
}

const prefix = process.argv[2];
if (!prefix || !/^[a-z0-9-]+$/.test(prefix)) {
  console.error('usage: npx tsx test/workflow/record-histories.ts <prefix>');
  process.exit(2);
}
main(prefix).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
