// Orders the test files of one group by their known cost, longest first, whatever their
// project. Vitest's own order runs the projects one after another by name (http, inproc,
// sandbox, unit, workflow) and, on a clean clone without its duration cache, files by size: the
// CPU-heavy unit soaks then started last and ran alone at the end of group 0 while the other
// workers sat idle. Files not listed keep vitest's order after the listed ones.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first (figures of a clean-clone run; the waits of fail-closed overlap best early). */
const LONGEST_FIRST = [
  'test/http/fail-closed.test.ts',
  'test/http/audit.test.ts',
  'test/http/natural-language.test.ts',
  'test/http/secret-scanning.test.ts',
  // Session 15's clean clone: 33-95 s files that were not listed and so started in vitest's
  // order (cli-ux finished 44th of 216 files, agent-approvals-restart 92nd).
  'test/unit/logic.test.ts',
  'test/http/ts-client-walk.test.ts',
  'test/http/cli-ux.test.ts',
  'test/http/mcp.test.ts',
  'test/http/agent-approvals-restart.test.ts',
  'test/http/batch-fixed-cost-s14.test.ts',
  'test/unit/logic-soak.test.ts',
  'test/http/batch.test.ts',
  'test/http/a2a.test.ts',
  'test/http/batch-durability.test.ts',
  'test/http/payload-codec.test.ts',
  'test/http/stats.test.ts',
  'test/sandbox/sandbox.test.ts',
  'test/http/cli.test.ts',
  'test/unit/isolation.test.ts',
  'test/http/rate-limits.test.ts',
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((p) => f.moduleId.endsWith(p));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    return base
      .map((f, i) => ({ f, i }))
      .sort(
        (a, b) =>
          a.f.project.config.sequence.groupOrder - b.f.project.config.sequence.groupOrder ||
          rank(a.f) - rank(b.f) ||
          a.i - b.i,
      )
      .map((x) => x.f);
  }
}
