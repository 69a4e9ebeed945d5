// The analyzer of each language family.
import type { Family } from '../languages.js';
import type { Analyzer } from './base.js';
import { goAnalyzer } from './go.js';
import { javaAnalyzer } from './java.js';
import { javascriptAnalyzer } from './javascript.js';
import { pythonAnalyzer } from './python.js';

const ANALYZERS: Partial<Record<Family, Analyzer>> = {
  python: pythonAnalyzer,
  javascript: javascriptAnalyzer,
  go: goAnalyzer,
  java: javaAnalyzer,
};

export function analyzerFor(family: Family): Analyzer {
  const a = ANALYZERS[family];
  if (!a) throw new Error(`no analyzer for ${family}`);
  return a;
}
