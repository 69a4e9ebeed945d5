// Loads web-tree-sitter and the grammar .wasm files, lazily and once.
//
// web-tree-sitter 0.27 accepts grammars of ABI 13–15; the @vscode/tree-sitter-wasm 0.3.x
// grammars are ABI 14 and 15, so the installed web-tree-sitter loads them directly (checked
// when each grammar loads: an incompatible ABI fails the load, which the scan reports as an
// internal error). Parsers are created once per language and reused: a parse is synchronous,
// so two scans never share a parser at the same moment.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language as TsLanguage, Parser } from 'web-tree-sitter';
import { GRAMMAR_FILES, type Language } from './languages.js';

const require = createRequire(import.meta.url);

export interface ParserIdentity {
  name: 'web-tree-sitter';
  version: string;
}

export interface GrammarIdentity {
  package: '@vscode/tree-sitter-wasm';
  package_version: string;
  file: string;
  sha256: string;
  abi_version: number;
}

export interface LoadedLanguage {
  language: Language;
  parser: Parser;
  tsLanguage: TsLanguage;
  grammar: GrammarIdentity;
}

interface Runtime {
  parser: ParserIdentity;
  grammarDir: string;
  grammarPackageVersion: string;
}

function packageVersion(packageJsonPath: string): string {
  const parsed = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version?: unknown };
  if (typeof parsed.version !== 'string') throw new Error(`no version in ${packageJsonPath}`);
  return parsed.version;
}

let runtimePromise: Promise<Runtime> | null = null;
const languagePromises = new Map<Language, Promise<LoadedLanguage>>();

async function initRuntime(): Promise<Runtime> {
  const wtsEntry = require.resolve('web-tree-sitter');
  const wtsDir = path.dirname(wtsEntry);
  const wasmPath = path.join(wtsDir, 'web-tree-sitter.wasm');
  await Parser.init({ locateFile: () => wasmPath });
  const grammarPkg = require.resolve('@vscode/tree-sitter-wasm/package.json');
  return {
    parser: { name: 'web-tree-sitter', version: packageVersion(path.join(wtsDir, 'package.json')) },
    grammarDir: path.join(path.dirname(grammarPkg), 'wasm'),
    grammarPackageVersion: packageVersion(grammarPkg),
  };
}

/** Initialises web-tree-sitter once; concurrent callers share the same promise, a failure may be retried. */
export function ensureRuntime(): Promise<Runtime> {
  if (!runtimePromise) {
    runtimePromise = initRuntime().catch((err: unknown) => {
      runtimePromise = null;
      throw err;
    });
  }
  return runtimePromise;
}

async function loadLanguage(language: Language): Promise<LoadedLanguage> {
  const runtime = await ensureRuntime();
  const file = GRAMMAR_FILES[language];
  const bytes = await readFile(path.join(runtime.grammarDir, file));
  const tsLanguage = await TsLanguage.load(new Uint8Array(bytes));
  const parser = new Parser();
  parser.setLanguage(tsLanguage);
  return {
    language,
    parser,
    tsLanguage,
    grammar: {
      package: '@vscode/tree-sitter-wasm',
      package_version: runtime.grammarPackageVersion,
      file,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      abi_version: tsLanguage.abiVersion,
    },
  };
}

/** The loaded grammar and the reusable parser of `language` (loaded on first use, once). */
export function getLanguage(language: Language): Promise<LoadedLanguage> {
  let pending = languagePromises.get(language);
  if (!pending) {
    pending = loadLanguage(language).catch((err: unknown) => {
      languagePromises.delete(language);
      throw err;
    });
    languagePromises.set(language, pending);
  }
  return pending;
}

export async function parserIdentity(): Promise<ParserIdentity> {
  return (await ensureRuntime()).parser;
}
