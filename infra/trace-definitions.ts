// Issue 25's count, checked by the TypeScript language service instead of by hand: each traced
// path of docs/architecture.md ("One request traced by definitions") is a list of hops, and each
// hop is one go-to-definition (`getDefinitionAtPosition`) on a token of a file that must land in
// the file the table names. A hop that lands elsewhere (or nowhere: a name string, a path string)
// fails the run. Prints, per path, every hop and the files a reader opens.
//
//   npx tsx infra/trace-definitions.ts            # the three paths
//   npx tsx infra/trace-definitions.ts math       # one of math | batch | agents
//
// The agents path stops at the guard pool's `run`: its thread script is loaded by a path string
// (the two searches of the table), which is where go-to-definition ends.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../core/project-paths.js';

/** One go-to-definition: in `file`, on `token` inside the first occurrence of `anchor`; it must land in `to`. */
type Hop = [file: string, anchor: string, token: string, to: string];

const PATHS: Record<string, Hop[]> = {
  math: [
    ['api/app.ts', '...mathHandlers(deps)', 'mathHandlers', 'api/routes/verify-math.ts'],
    ['api/routes/verify-math.ts', "engineRoute(deps, 'verifyMath'", 'engineRoute', 'api/engine-route.ts'],
    ['api/engine-route.ts', 'deps.temporal.runVerification(', 'runVerification', 'api/temporal.ts'],
    ['api/temporal.ts', 'const spec = ENGINES[engine];', 'ENGINES', 'core/engines.ts'],
    ['api/temporal.ts', 'opts.workflow ?? verificationWorkflows[engine]', 'verificationWorkflows', 'api/workflows.ts'],
    ['api/workflows.ts', '  math: workflows.verifyWorkflow,', 'verifyWorkflow', 'workflows/index.ts'],
    ['workflows/index.ts', 'export { verifyWorkflow', 'verifyWorkflow', 'workflows/verify.ts'],
    ['workflows/verify.ts', 'const engines = engineActivities(', 'engineActivities', 'workflows/engine-activities.ts'],
    ['workflows/engine-activities.ts', 'math: acts.verifyMathActivity', 'verifyMathActivity', 'activities/index.ts'],
    ['activities/index.ts', 'makeVerifyMathActivity(', 'makeVerifyMathActivity', 'activities/verify-math.ts'],
    ['activities/verify-math.ts', "runIsolated('math'", 'runIsolated', 'activities/isolation/run.ts'],
    [
      'activities/isolation/run.ts',
      'export async function runIsolated<K extends EngineTaskName>',
      'EngineTaskName',
      'activities/isolation/engine-tasks.ts',
    ],
    [
      'activities/isolation/engine-tasks.ts',
      '(await ENGINE_MODULES.math()).verifyMath(input)',
      'verifyMath',
      'engines/math/verify.ts',
    ],
    ['activities/verify-math.ts', 'sealProof(', 'sealProof', 'activities/proofs.ts'],
    ['workflows/verify.ts', 'await appendAuditActivity({', 'appendAuditActivity', 'activities/audit.ts'],
  ],
  batch: [
    ['api/app.ts', '...batchHandlers(deps)', 'batchHandlers', 'api/routes/verify-batch.ts'],
    ['api/routes/verify-batch.ts', 'batches.submit(', 'submit', 'api/batch-jobs.ts'],
    ['api/batch-jobs.ts', 'this.temporal.startWorkflow(', 'startWorkflow', 'api/temporal.ts'],
    ['api/batch-jobs.ts', '        workflows.batchWorkflow,', 'batchWorkflow', 'workflows/index.ts'],
    ['workflows/index.ts', 'export { batchWorkflow }', 'batchWorkflow', 'workflows/batch.ts'],
    // Math items: the unit activity destructured from the proxies.
    [
      'workflows/batch.ts',
      'const { mathBatchUnitActivity } = local',
      'mathBatchUnitActivity',
      'activities/verify-batch.ts',
    ],
    ['activities/verify-batch.ts', 'await runIsolated<EngineOutcome>(', 'runIsolated', 'activities/isolation/run.ts'],
    // Other item types: the item activity by reference (no name string).
    [
      'workflows/batch.ts',
      'const itemActivities = batchItemActivities(items);',
      'batchItemActivities',
      'workflows/engine-activities.ts',
    ],
    [
      'workflows/engine-activities.ts',
      'logic: acts.verifyLogicBatchItemActivity',
      'verifyLogicBatchItemActivity',
      'activities/verify-batch.ts',
    ],
  ],
  agents: [
    ['api/app.ts', '...agentHandlers(deps)', 'agentHandlers', 'api/routes/agents.ts'],
    ['api/routes/agents.ts', 'deps.temporal.runWorkflow(', 'runWorkflow', 'api/temporal.ts'],
    ['api/routes/agents.ts', 'math: ENGINES.math.deadlineMs(cfg)', 'ENGINES', 'core/engines.ts'],
    ['api/routes/agents.ts', '      workflows.agentWorkflow,', 'agentWorkflow', 'workflows/index.ts'],
    ['workflows/index.ts', 'export { agentWorkflow }', 'agentWorkflow', 'workflows/agents.ts'],
    [
      'workflows/agents.ts',
      'const guard = await agentGuardActivity(req);',
      'agentGuardActivity',
      'activities/agents.ts',
    ],
    ['activities/agents.ts', 'deps.guardPool.run(', 'run', 'activities/agent-guard-pool.ts'],
    ['workflows/agents.ts', 'decision = decideTool(', 'decideTool', 'engines/agents/decide.ts'],
    ['workflows/agents.ts', 'const engines = engineActivities(', 'engineActivities', 'workflows/engine-activities.ts'],
  ],
};

function languageService(root: string): ts.LanguageService {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => parsed.options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (f) => ts.sys.fileExists(f),
    readFile: (f) => ts.sys.readFile(f),
    readDirectory: (...a) => ts.sys.readDirectory(...a),
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** Where go-to-definition on the hop's token lands: `file:line` of each definition. */
function definitions(ls: ts.LanguageService, root: string, [file, anchor, token]: Hop): string[] {
  const abs = path.join(root, file);
  const text = fs.readFileSync(abs, 'utf8');
  const at = text.indexOf(anchor);
  if (at < 0) throw new Error(`${file}: anchor not found: ${anchor}`);
  const defs = ls.getDefinitionAtPosition(abs, at + anchor.indexOf(token) + 1) ?? [];
  return defs.map((d) => {
    const line = fs.readFileSync(d.fileName, 'utf8').slice(0, d.textSpan.start).split('\n').length;
    return `${path.relative(root, d.fileName)}:${line}`;
  });
}

function main(): void {
  const wanted = process.argv.slice(2);
  const ls = languageService(PROJECT_ROOT);
  let failed = 0;
  for (const [name, hops] of Object.entries(PATHS)) {
    if (wanted.length && !wanted.includes(name)) continue;
    const opened = new Set<string>();
    console.log(`${name}:`);
    for (const hop of hops) {
      const landed = definitions(ls, PROJECT_ROOT, hop);
      const ok = landed.some((d) => d.startsWith(`${hop[3]}:`));
      if (!ok) failed++;
      if (hop[0] !== 'api/app.ts') opened.add(hop[0]);
      opened.add(hop[3]);
      console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${hop[0]} «${hop[2]}» → ${landed.join(' | ') || 'no definition'}`);
    }
    console.log(`  files on these hops (api/app.ts not counted): ${opened.size}`);
  }
  if (failed) {
    console.error(`${failed} hop(s) did not land where the table says`);
    process.exitCode = 1;
  }
}

main();
