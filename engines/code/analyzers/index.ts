// The analyzer of each language family.
import type { Family } from '../languages.js';
import type { Analyzer } from './base.js';
import { bashAnalyzer } from './bash.js';
import { csharpAnalyzer } from './csharp.js';
import { goAnalyzer } from './go.js';
import { javaAnalyzer } from './java.js';
import { javascriptAnalyzer } from './javascript.js';
import { phpAnalyzer } from './php.js';
import { pythonAnalyzer } from './python.js';
import { rubyAnalyzer } from './ruby.js';

const ANALYZERS: Record<Family, Analyzer> = {
  python: pythonAnalyzer,
  javascript: javascriptAnalyzer,
  go: goAnalyzer,
  java: javaAnalyzer,
  ruby: rubyAnalyzer,
  php: phpAnalyzer,
  bash: bashAnalyzer,
  csharp: csharpAnalyzer,
};

export function analyzerFor(family: Family): Analyzer {
  return ANALYZERS[family];
}
