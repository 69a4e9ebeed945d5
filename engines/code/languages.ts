// The languages the code scanner supports, the names callers may use for them, and the
// grammar file each one is parsed with.

export const SUPPORTED_LANGUAGES = [
  'python',
  'javascript',
  'typescript',
  'tsx',
  'bash',
  'go',
  'java',
  'ruby',
  'php',
  'csharp',
] as const;

export type Language = (typeof SUPPORTED_LANGUAGES)[number];

/** Accepted spellings (compared lower-cased and trimmed) → canonical language. */
const ALIASES: Readonly<Record<string, Language>> = {
  python: 'python',
  py: 'python',
  python3: 'python',
  py3: 'python',
  javascript: 'javascript',
  js: 'javascript',
  node: 'javascript',
  nodejs: 'javascript',
  'node.js': 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ecmascript: 'javascript',
  typescript: 'typescript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  bash: 'bash',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  shellscript: 'bash',
  go: 'go',
  golang: 'go',
  java: 'java',
  ruby: 'ruby',
  rb: 'ruby',
  php: 'php',
  csharp: 'csharp',
  cs: 'csharp',
  'c#': 'csharp',
  'c-sharp': 'csharp',
  dotnet: 'csharp',
};

/** Canonical language for a caller-supplied name, or null when it is not supported. */
export function resolveLanguage(name: string): Language | null {
  return ALIASES[name.trim().toLowerCase()] ?? null;
}

/** Grammar file (in @vscode/tree-sitter-wasm/wasm) for each language. */
export const GRAMMAR_FILES: Readonly<Record<Language, string>> = {
  python: 'tree-sitter-python.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  bash: 'tree-sitter-bash.wasm',
  go: 'tree-sitter-go.wasm',
  java: 'tree-sitter-java.wasm',
  ruby: 'tree-sitter-ruby.wasm',
  php: 'tree-sitter-php.wasm',
  csharp: 'tree-sitter-c-sharp.wasm',
};

/** The analyzer family a language belongs to (TypeScript and TSX share the JavaScript analyzer). */
export type Family = 'python' | 'javascript' | 'bash' | 'go' | 'java' | 'ruby' | 'php' | 'csharp';

export function familyOf(language: Language): Family {
  return language === 'typescript' || language === 'tsx' ? 'javascript' : language;
}
