// /verify/code engine: a security scan of source code on tree-sitter syntax trees, with
// import/alias resolution, returning the contract's EngineOutcome. Pure: no I/O besides
// loading the parser and grammar files once.
import { createHash } from 'node:crypto';
import type { EngineOutcome } from '../../core/diagnostic.js';
import { toIssue, type Finding } from './findings.js';
import { resolveLanguage, SUPPORTED_LANGUAGES, type Language } from './languages.js';
import { RULES, RULES_SHA256, RULES_VERSION } from './rules.js';
import { getLanguage, parserIdentity, type GrammarIdentity, type ParserIdentity } from './runtime.js';
import { parsesCleanly, ScanTimeoutError, scanSource } from './scan.js';
import { AnalysisLimitError } from './scopes.js';
import { blockedOutcome, CONSTRAINT, provenOutcome, summarize } from './verdict.js';

export { SUPPORTED_LANGUAGES, resolveLanguage, type Language } from './languages.js';
export type { Finding, Issue, IssueType, Severity } from './findings.js';
export { RULES, RULES_SHA256, RULES_VERSION } from './rules.js';
export { CONSTRAINT } from './verdict.js';
export { ScanTimeoutError } from './scan.js';

export const DEFAULT_LANGUAGE: Language = 'python';

export interface ScanCodeOptions {
  /** Abandon the scan after this many milliseconds (→ BLOCKED `code_verifier.timeout`). */
  timeoutMs?: number;
}

export type RawScan =
  | {
      status: 'scanned';
      language: Language;
      findings: Finding[];
      /** Completion applied to a snippet so the grammar accepts it (see scan.ts), or null. */
      wrapper: string | null;
      errorCoverage: number;
      parser: ParserIdentity;
      grammar: GrammarIdentity;
    }
  | { status: 'empty_code' }
  | { status: 'unsupported_language'; requested: string }
  | {
      status: 'parse_failure';
      language: Language;
      errorCoverage: number;
      firstErrorLine: number;
      /** Critical findings in what error recovery still recognised (a lower bound). */
      recovered: Finding[];
      /** Other supported languages the code parses as without a syntax error (a hint). */
      parsesAs: Language[];
    }
  | {
      /** Parsed in part: some syntax error in the declared language, so no verdict holds. */
      status: 'syntax_error';
      language: Language;
      errorCoverage: number;
      firstErrorLine: number;
      /** Everything the scan of the error-recovered tree found, parse errors included. */
      findings: Finding[];
      parsesAs: Language[];
    };

/** Inputs longer than this get no language hint (eight more parses of a large input cost too much). */
const HINT_MAX_CHARS = 16_384;

/** Other supported languages `code` parses as with no syntax error at all. */
async function otherLanguagesParsed(
  code: string,
  declared: Language,
  deadline: number | undefined,
): Promise<Language[]> {
  const out: Language[] = [];
  if (code.length > HINT_MAX_CHARS) return out;
  for (const other of SUPPORTED_LANGUAGES) {
    if (other === declared) continue;
    if (deadline !== undefined && performance.now() >= deadline) throw new ScanTimeoutError();
    if (parsesCleanly(await getLanguage(other), code, deadline)) out.push(other);
  }
  return out;
}

/**
 * Scans `code` and returns its findings (no verdict). Throws ScanTimeoutError on time-out and
 * any other error on internal failure.
 */
export async function scanCodeRaw(
  code: string,
  language: string = DEFAULT_LANGUAGE,
  options: ScanCodeOptions = {},
): Promise<RawScan> {
  if (typeof code !== 'string' || code.trim() === '') return { status: 'empty_code' };
  const canonical = typeof language === 'string' ? resolveLanguage(language) : null;
  if (!canonical) return { status: 'unsupported_language', requested: String(language) };
  const deadline = options.timeoutMs !== undefined ? performance.now() + options.timeoutMs : undefined;
  const loaded = await getLanguage(canonical);
  const parser = await parserIdentity();
  if (deadline !== undefined && performance.now() >= deadline) throw new ScanTimeoutError();
  const out = scanSource(loaded, code, { deadline });
  if (!out.ok) {
    const parsesAs = await otherLanguagesParsed(code, canonical, deadline);
    return {
      status: 'parse_failure',
      language: canonical,
      errorCoverage: out.errorCoverage,
      firstErrorLine: out.firstErrorLine,
      recovered: out.recovered,
      parsesAs,
    };
  }
  if (out.hasSyntaxError) {
    // A safety verdict holds only for code that parsed: what error recovery skipped or guessed
    // may run as something else (JavaScript sent as Python is mostly "parsed" around the errors).
    const first = out.findings.find((f) => f.type === 'parse_error')?.line_number ?? 1;
    const parsesAs = await otherLanguagesParsed(code, canonical, deadline);
    return {
      status: 'syntax_error',
      language: canonical,
      errorCoverage: out.errorCoverage,
      firstErrorLine: first,
      findings: out.findings,
      parsesAs,
    };
  }
  return {
    status: 'scanned',
    language: canonical,
    findings: out.findings,
    wrapper: out.wrapper,
    errorCoverage: out.errorCoverage,
    parser,
    grammar: loaded.grammar,
  };
}

function parsesAsHint(langs: readonly Language[]): string {
  if (langs.length === 0) return '';
  return ` It parses as ${langs.join(', ')}: send it with "language": "${langs[0]}" if that is what it is.`;
}

/** The /verify/code verdict for `code` in `language` (default python; aliases accepted, case-insensitive). */
export async function scanCode(
  code: string,
  language: string = DEFAULT_LANGUAGE,
  options: ScanCodeOptions = {},
): Promise<EngineOutcome> {
  let raw: RawScan;
  try {
    raw = await scanCodeRaw(code, language ?? DEFAULT_LANGUAGE, options);
  } catch (err) {
    if (err instanceof ScanTimeoutError) return blockedOutcome(CONSTRAINT.timeout, 'Code verification timed out.');
    if (err instanceof AnalysisLimitError)
      return blockedOutcome(
        CONSTRAINT.analysisLimit,
        `Code verification stopped at an analysis bound (${err.message}); the code was not verified.`,
      );
    return blockedOutcome(
      CONSTRAINT.internalError,
      'Code verification failed because of an internal error; the code was not verified.',
    );
  }
  switch (raw.status) {
    case 'empty_code':
      return blockedOutcome(CONSTRAINT.emptyCode, 'No code was provided to verify.');
    case 'unsupported_language':
      return blockedOutcome(
        CONSTRAINT.unsupportedLanguage,
        `The language "${raw.requested.slice(0, 40).replace(/[^\w .+#-]/g, '?')}" is not supported; supported languages: ${SUPPORTED_LANGUAGES.join(', ')}.`,
        { supported_languages: [...SUPPORTED_LANGUAGES] },
      );
    case 'parse_failure': {
      // Blocked either way (fail closed); critical lines found in the recovered parts are listed
      // so the caller sees them too (a lower bound: the rest could not be read).
      const n = raw.recovered.length;
      const seen =
        n === 0
          ? ''
          : ` ${n} critical issue${n === 1 ? '' : 's'} recognised in the parts that could be read (first on line ${raw.recovered[0].line_number}: ${raw.recovered[0].description}).`;
      return blockedOutcome(
        CONSTRAINT.parseFailure,
        `The code could not be parsed as ${raw.language}: most of it is not valid ${raw.language} syntax (first error on line ${raw.firstErrorLine}).${seen}${parsesAsHint(raw.parsesAs)}`,
        {
          language: raw.language,
          error_coverage: raw.errorCoverage,
          ...(n > 0 ? { critical_count: n, issues: raw.recovered.map(toIssue) } : {}),
          ...(raw.parsesAs.length > 0 ? { parses_as: raw.parsesAs } : {}),
        },
      );
    }
    case 'syntax_error': {
      const errors = raw.findings.filter((f) => f.type === 'parse_error').length;
      const critical = raw.findings.filter((f) => f.severity === 'critical');
      const seen =
        critical.length === 0
          ? ''
          : ` ${critical.length} critical issue${critical.length === 1 ? '' : 's'} recognised in the parts that could be read (first on line ${critical[0].line_number}: ${critical[0].description}).`;
      return blockedOutcome(
        CONSTRAINT.syntaxError,
        `The code does not parse as ${raw.language}: ${errors} syntax error${errors === 1 ? '' : 's'} (first on line ${raw.firstErrorLine}); a safety verdict holds only for code that parses, so it was not verified.${seen}${parsesAsHint(raw.parsesAs)}`,
        {
          language: raw.language,
          error_coverage: raw.errorCoverage,
          critical_count: critical.length,
          issues: raw.findings.map(toIssue),
          ...(raw.parsesAs.length > 0 ? { parses_as: raw.parsesAs } : {}),
        },
      );
    }
  }
  const summary = summarize(raw.findings);
  const proof: Record<string, unknown> = {
    engine: 'code_verifier',
    language: raw.language,
    parser: { ...raw.parser },
    grammar: { ...raw.grammar },
    snippet_wrapper: raw.wrapper,
    parse_error_coverage: raw.errorCoverage,
    rules: { version: RULES_VERSION, sha256: RULES_SHA256, count: RULES.length },
    code_sha256: createHash('sha256').update(code, 'utf8').digest('hex'),
    findings: raw.findings.map((f) => ({ ...f })),
    verdict: {
      constraint_id: summary.constraint_id,
      is_safe: summary.is_safe,
      is_valid: summary.is_valid,
      critical_count: summary.critical_count,
    },
  };
  return provenOutcome(raw.language, raw.findings, proof);
}
