// The shape of test/fixtures/code/suites/manifest.json: written by bench/code-suites-labels.ts,
// read by bench/code-suites.ts.

export type Category = 'process_execution' | 'dynamic_code_execution' | 'unsafe_deserialization';

export interface Label {
  line: number;
  category: Category;
  /** The suite's own rule or warning that put the label there. */
  source: string;
}

export interface FileEntry {
  suite: string;
  path: string;
  language: string;
  extract: 'file' | 'go-backquoted-samples';
  /** A safe case of the suite: no label, counted for precision. */
  safe?: boolean;
  /**
   * A safe case of the suite that still runs a process (with a constant command): the contract
   * blocks every process execution whatever its argument, so it is not counted for precision;
   * the bench reports it separately (expected BLOCKED).
   */
  runsProcess?: boolean;
  /** The file's own commit, for suites read file by file (codeql): <mirror>/<owner+name>/files/<commit>/<path>. */
  commit?: string;
  /** Lines the suite marks safe (`OK`, `GOOD`, its own spurious alerts): a critical finding there is a false positive. */
  safeLines?: number[];
  labels: Label[];
}

/** Where the manifest's code is read from, at bench time (the suites' git snapshots). */
export const suitesMirror = (root: string): string =>
  process.env.SVC_CODE_SUITES_MIRROR ?? `${root}.tools/corpora/suites`;
