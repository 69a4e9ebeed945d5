// `svc`: the command-line client (docs/cli.md). Thin: argument parsing and output here, every
// request through the typed client, the exit code from the verdict (client/outcome.ts).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SvcClient, SvcApiError, SvcNetworkError } from '../index.js';
import { outcomeOf, type Outcome, type VerifyKind } from '../outcome.js';
import { EXIT, OUTCOME_EXIT, UsageError, InputError, exitCodeForError } from './exit-codes.js';
import { runBatch } from './batch.js';
import { humanVerdict, table, type Io } from './output.js';
import { configPath, readConfig, removeConfig, writeConfig, type StoredConfig } from './config.js';
import { completionScript, SHELLS } from './completion.js';
import { runMcpProxy } from './mcp.js';

/** The CLI's version: the service version it was built with (docs/cli.md). */
export const CLI_VERSION = '7.3.0';

export const HELP = `svc — command-line client of the verification service

Usage:
  svc verify <kind> <input> [flags]     one verification
  svc batch <items.jsonl> [flags]       submit a batch, show progress, then a table of results
        --out FILE   results as JSON Lines into FILE       --jsonl  JSON Lines on stdout
        --json       one JSON document {items, summary}     --chunk-size N  items per job (default 100;
                     split further to the plan's batch size when the service names it)
  svc login --email E --password-stdin  sign in and store the access token (expires after an hour)
  svc login --token JWT | --api-key KEY [--base-url URL]   store credentials
  svc login --status                    show what is stored;  svc logout  forget it
  svc keys create <name> [--scopes a,b] [--expires-in-days N]
  svc keys list
  svc keys revoke <key_id>
  svc health
  svc mcp                               a stdio MCP server forwarding to the service's /mcp (docs/mcp.md)
  svc completion bash|zsh               shell completion (source <(svc completion bash))
  svc --version

Verify kinds and their input (<input> or a FILE may be '-' for stdin; a flag value @FILE reads FILE):
  math <expression>            [--domain real|complex] [--tolerance T] [--precision decimal|float]
  logic <query>                [--provider P]
  code <FILE|->                [--language python|javascript|...] (default: from the file's
                               extension, .py .js .ts .tsx .sh .go .java .rb .php; stdin: python)
  sql <FILE|->                 --schema FILE | --schema-ddl DDL  [--dialect sqlite|postgres|mysql|...]
  fact <claim>                 --context TEXT|@FILE [--provider P]
  stats <CSV FILE> <query>     (or --query Q)
  consensus <query>            [--mode single|high|maximum] [--min-confidence 0..1]
  natural_language <query>     [--provider P]
  image <IMAGE FILE> <claim>   (or --claim C) [--provider P]
  process <FILE|->             [--mode irac|milestones] [--milestone M ...]
  rag <JSON FILE|->            body: {target_document_id, chunks, max_drm_rate}

Global flags:
  --json                 machine output (one JSON document; errors as {"error":{...}})
  --base-url URL         default SVC_BASE_URL, else svc login's, else http://127.0.0.1:8000
  --api-key KEY          default SVC_API_KEY, else svc login's (verify, batch)
  --token JWT            default SVC_ACCESS_TOKEN, else svc login's (keys: the Bearer token from sign-in)
  -v, --verbose          also show the workflow id (X-Workflow-Id) of each answer
  --timeout SECONDS      per request (default 60)
  --retries N            attempts on 429/503, honouring Retry-After (default 4; total wait <= 30 s)
  -h, --help             this text
  --version              the CLI's version

Credentials stored by svc login: $SVC_CONFIG_DIR/config.json, else $XDG_CONFIG_HOME/svc/config.json,
else ~/.config/svc/config.json (mode 0600).

Exit codes:
  0   VERIFIED, or the endpoint's admitted outcome (code/sql ADMIT, logic SAT, fact/image
      SUPPORTED, consensus meets_requirement, process/rag verified); health: healthy;
      keys: done; batch: every item verified
  1   not verified (UNVERIFIABLE, UNSAT, REFUTED, INCONCLUSIVE, natural_language always)
  2   blocked (status BLOCKED, or admission BLOCKED: proven-unsafe code or SQL)
  3   the check could not complete (status ERROR; a failed batch item)
  64  usage error (bad command line)
  65  bad input: refused by the service (400/404/409/413/422, its detail printed) or a malformed file
  69  service unavailable (unreachable, or a 5xx other than 503)
  75  temporary failure: 429/503 after the bounded retries, 408, or no answer in time
  77  not authorized (401/403)
`;

const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  token: { type: 'string' },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  verbose: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const VERIFY_OPTIONS = {
  ...GLOBAL_OPTIONS,
  domain: { type: 'string' },
  tolerance: { type: 'string' },
  precision: { type: 'string' },
  provider: { type: 'string' },
  language: { type: 'string' },
  dialect: { type: 'string' },
  schema: { type: 'string' },
  'schema-ddl': { type: 'string' },
  context: { type: 'string' },
  query: { type: 'string' },
  claim: { type: 'string' },
  mode: { type: 'string' },
  'min-confidence': { type: 'string' },
  milestone: { type: 'string', multiple: true },
} as const satisfies ParseArgsConfig['options'];

const BATCH_OPTIONS = {
  ...GLOBAL_OPTIONS,
  out: { type: 'string', short: 'o' },
  'poll-ms': { type: 'string' },
  'wait-timeout': { type: 'string' },
  'chunk-size': { type: 'string' },
  progress: { type: 'boolean' },
  'no-progress': { type: 'boolean' },
  jsonl: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

const LOGIN_OPTIONS = {
  ...GLOBAL_OPTIONS,
  email: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  status: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

const KEYS_OPTIONS = {
  ...GLOBAL_OPTIONS,
  scopes: { type: 'string' },
  'expires-in-days': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export const VERIFY_KINDS: readonly VerifyKind[] = [
  'math',
  'logic',
  'code',
  'sql',
  'fact',
  'stats',
  'consensus',
  'natural_language',
  'image',
  'process',
  'rag',
];

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

type GlobalValues = {
  json?: boolean;
  'base-url'?: string;
  'api-key'?: string;
  token?: string;
  timeout?: string;
  retries?: string;
  verbose?: boolean;
};

function positiveNumber(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number`);
  return n;
}

interface Session {
  client: SvcClient;
  /** X-Workflow-Id of the last answer that had one. */
  workflowId: () => string | undefined;
  /** Where each credential came from (for the 401 hint). */
  tokenFrom: 'flag' | 'env' | 'login' | null;
}

/** Flag, then SVC_* variable, then what svc login stored. */
function clientFor(v: GlobalValues, env: NodeJS.ProcessEnv, io: Io): Session {
  const timeout = positiveNumber('timeout', v.timeout);
  const retries = positiveNumber('retries', v.retries);
  if (retries !== undefined && !Number.isInteger(retries)) throw new UsageError('--retries must be a whole number');
  const stored = readConfig(env, io.err);
  const token = v.token ?? (env.SVC_ACCESS_TOKEN || undefined);
  let workflowId: string | undefined;
  const client = new SvcClient({
    baseUrl: v['base-url'] ?? (env.SVC_BASE_URL || undefined) ?? stored.base_url ?? 'http://127.0.0.1:8000',
    apiKey: v['api-key'] ?? (env.SVC_API_KEY || undefined) ?? stored.api_key,
    accessToken: token ?? stored.access_token,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    retry: retries === undefined ? undefined : { maxAttempts: retries },
    onRetry: ({ status, waitMs }) => io.err(`svc: HTTP ${status}, retrying in ${(waitMs / 1000).toFixed(1)} s`),
    onResponse: ({ headers }) => {
      workflowId = headers.get('x-workflow-id') ?? workflowId;
    },
  });
  return {
    client,
    workflowId: () => workflowId,
    tokenFrom: v.token ? 'flag' : token ? 'env' : stored.access_token ? 'login' : null,
  };
}

/** `svc verify code FILE`: the language its extension names (engines/code/languages.ts spellings). */
const EXTENSION_LANGUAGES: Record<string, string> = {
  '.py': 'python',
  '.pyw': 'python',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.sh': 'bash',
  '.bash': 'bash',
  '.zsh': 'bash',
  '.go': 'go',
  '.java': 'java',
  '.rb': 'ruby',
  '.php': 'php',
};

export function languageFor(source: string, flag: string | undefined): string {
  if (flag !== undefined) return flag;
  // stdin has no name: python, as before (and as the service's default).
  if (source === '-') return 'python';
  const ext = path.extname(source).toLowerCase();
  const lang = EXTENSION_LANGUAGES[ext];
  if (!lang)
    throw new UsageError(
      `cannot tell the language of '${path.basename(source)}' from its extension; pass --language (python, javascript, typescript, tsx, bash, go, java, ruby, php)`,
    );
  return lang;
}

/** `-` is stdin; anything else a file path. */
function readInput(io: Io, source: string, what: string): string {
  try {
    return source === '-' ? io.readStdin() : readFileSync(source, 'utf8');
  } catch (err) {
    throw new InputError(
      `cannot read ${what} '${source}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
function readBytes(io: Io, source: string, what: string): Uint8Array {
  try {
    return source === '-' ? io.readStdinBytes() : readFileSync(source);
  } catch (err) {
    throw new InputError(
      `cannot read ${what} '${source}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
/** A flag value: `@FILE` reads the file (`@-` stdin), anything else is literal. */
function flagText(io: Io, v: string, what: string): string {
  return v.startsWith('@') ? readInput(io, v.slice(1), what) : v;
}

function need(value: string | undefined, message: string): string {
  if (value === undefined || value === '') throw new UsageError(message);
  return value;
}

function oneOf<T extends string>(flag: string, v: string | undefined, allowed: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v))
    throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}`);
  return v as T;
}

async function verify(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const { values: o, positionals } = parse(args, VERIFY_OPTIONS);
  const [kindArg, input, second, ...rest] = positionals;
  if (!kindArg) throw new UsageError(`svc verify needs a kind: ${VERIFY_KINDS.join(', ')}`);
  const kind = kindArg.replace(/-/g, '_') as VerifyKind;
  if (!VERIFY_KINDS.includes(kind))
    throw new UsageError(`unknown verify kind '${kindArg}'; expected one of ${VERIFY_KINDS.join(', ')}`);
  const takesTwo = kind === 'stats' || kind === 'image';
  if (rest.length > 0 || (second !== undefined && !takesTwo))
    throw new UsageError(`too many arguments for svc verify ${kind} (quote the input)`);
  const src = need(input, `svc verify ${kind} needs an input`);
  const session = clientFor(o, env, io);
  const c = session.client;
  const text = (what: string) => (src === '-' ? readInput(io, '-', what) : src);
  let result: unknown;
  switch (kind) {
    case 'math': {
      let tolerance: number | string | undefined = o.tolerance;
      if (tolerance !== undefined && tolerance.trim() !== '' && Number.isFinite(Number(tolerance)))
        tolerance = Number(tolerance);
      result = await c.verifyMath(text('expression'), {
        context:
          o.domain === undefined ? undefined : { domain: oneOf('domain', o.domain, ['real', 'complex'] as const) },
        tolerance,
        precision_mode: oneOf('precision', o.precision, ['decimal', 'float'] as const),
      });
      break;
    }
    case 'logic':
      result = await c.verifyLogic(text('query'), { provider: o.provider });
      break;
    case 'code':
      result = await c.verifyCode(readInput(io, src, 'code'), languageFor(src, o.language));
      break;
    case 'sql': {
      if (o.schema !== undefined && o['schema-ddl'] !== undefined)
        throw new UsageError('give --schema FILE or --schema-ddl DDL, not both');
      const ddl =
        o.schema !== undefined
          ? readInput(io, o.schema, 'schema')
          : need(o['schema-ddl'], 'svc verify sql needs --schema FILE or --schema-ddl DDL');
      result = await c.verifySql(readInput(io, src, 'query'), ddl, o.dialect ?? 'sqlite');
      break;
    }
    case 'fact': {
      const context = flagText(
        io,
        need(o.context, 'svc verify fact needs --context TEXT or --context @FILE'),
        'context',
      );
      result = await c.verifyFact(text('claim'), context, { provider: o.provider });
      break;
    }
    case 'stats': {
      const query = need(second ?? o.query, 'svc verify stats needs a query: svc verify stats FILE.csv "claim"');
      result = await c.verifyStats(
        {
          data: readBytes(io, src, 'CSV file'),
          filename: src === '-' ? 'data.csv' : path.basename(src),
          type: 'text/csv',
        },
        query,
      );
      break;
    }
    case 'image': {
      const claim = need(second ?? o.claim, 'svc verify image needs a claim: svc verify image FILE "claim"');
      result = await c.verifyImage(
        { data: readBytes(io, src, 'image'), filename: src === '-' ? 'image' : path.basename(src) },
        claim,
        { provider: o.provider },
      );
      break;
    }
    case 'consensus': {
      const min = o['min-confidence'];
      const minConfidence = min === undefined ? undefined : Number(min);
      if (minConfidence !== undefined && !Number.isFinite(minConfidence))
        throw new UsageError('--min-confidence must be a number');
      result = await c.verifyConsensus(text('query'), {
        verification_mode: oneOf('mode', o.mode, ['single', 'high', 'maximum'] as const),
        min_confidence: minConfidence,
      });
      break;
    }
    case 'natural_language':
      result = await c.verifyNaturalLanguage(text('query'), { provider: o.provider });
      break;
    case 'process':
      result = await c.verifyProcess({
        trace: readInput(io, src, 'trace'),
        mode: oneOf('mode', o.mode, ['irac', 'milestones'] as const),
        milestones: o.milestone,
      });
      break;
    case 'rag': {
      let body: unknown;
      try {
        body = JSON.parse(readInput(io, src, 'RAG request'));
      } catch (err) {
        if (err instanceof InputError) throw err;
        throw new InputError(`the RAG request in '${src}' is not JSON: ${(err as Error).message}`);
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw new InputError('the RAG request must be a JSON object');
      result = await c.verifyRag(body as Parameters<SvcClient['verifyRag']>[0]);
      break;
    }
  }
  const outcome: Outcome = outcomeOf(kind, result);
  if (o.json) {
    io.out(JSON.stringify(result));
    if (o.verbose && session.workflowId()) io.err(`svc: workflow ${session.workflowId()}`);
  } else io.out(humanVerdict(kind, result, outcome, { workflowId: o.verbose ? session.workflowId() : undefined }));
  return OUTCOME_EXIT[outcome];
}

async function keys(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const { values: o, positionals } = parse(args, KEYS_OPTIONS);
  const [sub, arg, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError('too many arguments for svc keys');
  const session = clientFor(o, env, io);
  const c = session.client;
  if (!c.transport.accessToken)
    throw new UsageError(
      'svc keys needs an access token: svc login, or --token JWT / SVC_ACCESS_TOKEN (from /auth/signin)',
    );
  try {
    return await keysCommand(c, sub, arg, o, io);
  } catch (err) {
    // Access tokens expire after an hour: say how to get a fresh one.
    if (err instanceof SvcApiError && err.status === 401 && session.tokenFrom === 'login')
      io.err('svc: the stored access token was refused (expired?): run svc login again');
    throw err;
  }
}

async function keysCommand(
  c: SvcClient,
  sub: string | undefined,
  arg: string | undefined,
  o: { json?: boolean; scopes?: string; 'expires-in-days'?: string },
  io: Io,
): Promise<number> {
  switch (sub) {
    case 'create': {
      const name = need(arg, 'svc keys create needs a name');
      const days = positiveNumber('expires-in-days', o['expires-in-days']);
      const scopes = o.scopes
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) as Parameters<SvcClient['createKey']>[0]['scopes'];
      const k = await c.createKey({ name, scopes, expires_in_days: days });
      if (o.json) io.out(JSON.stringify(k));
      else io.out(`created key ${k.id} (${k.name})\n${k.key}\nThe key is shown once only: store it now.`);
      return EXIT.VERIFIED;
    }
    case 'list': {
      if (arg !== undefined) throw new UsageError('svc keys list takes no argument');
      const list = await c.listKeys();
      if (o.json) io.out(JSON.stringify(list));
      else if (list.length === 0) io.out('no active keys');
      else
        io.out(
          table([
            ['ID', 'NAME', 'PREVIEW', 'CREATED', 'EXPIRES', 'SCOPES'],
            ...list.map((k) => [
              k.id,
              k.name,
              k.preview ?? '',
              k.created_at,
              k.expires_at ?? 'never',
              (k.scopes ?? []).join(','),
            ]),
          ]),
        );
      return EXIT.VERIFIED;
    }
    case 'revoke': {
      const id = need(arg, 'svc keys revoke needs a key id');
      const r = await c.revokeKey(id);
      if (o.json) io.out(JSON.stringify(r));
      else io.out(`revoked key ${r.id}`);
      return EXIT.VERIFIED;
    }
    default:
      throw new UsageError(
        sub
          ? `unknown keys command '${sub}'; expected create, list or revoke`
          : 'svc keys needs create, list or revoke',
      );
  }
}

async function health(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const { values: o, positionals } = parse(args, GLOBAL_OPTIONS);
  if (positionals.length > 0) throw new UsageError('svc health takes no argument');
  const h = await clientFor(o, env, io).client.health();
  if (o.json) io.out(JSON.stringify(h));
  else io.out(`${h.service} ${h.version}: ${h.status} (${h.timestamp})`);
  return h.status === 'healthy' ? EXIT.VERIFIED : EXIT.UNAVAILABLE;
}

/** A JWT's expiry (seconds since the epoch), read without verifying (the service verifies it). */
function jwtExpiry(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' ? payload.exp : undefined;
  } catch {
    return undefined;
  }
}

async function login(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const { values: o, positionals } = parse(args, LOGIN_OPTIONS);
  if (positionals.length > 0) throw new UsageError('svc login takes no argument (use --email, --token or --api-key)');
  const file = configPath(env);
  const stored = readConfig(env, io.err);
  if (o.status) {
    const exp = stored.access_token ? jwtExpiry(stored.access_token) : undefined;
    const view = {
      config: file,
      base_url: stored.base_url ?? null,
      email: stored.email ?? null,
      api_key: stored.api_key ? `${stored.api_key.slice(0, 12)}…` : null,
      access_token: stored.access_token ? (exp ? `expires ${new Date(exp * 1000).toISOString()}` : 'stored') : null,
    };
    if (o.json) io.out(JSON.stringify(view));
    else
      io.out(
        Object.entries(view)
          .map(([k, v]) => `${k}: ${v ?? '-'}`)
          .join('\n'),
      );
    return stored.access_token || stored.api_key ? EXIT.VERIFIED : EXIT.NOT_VERIFIED;
  }
  const ways = [o.email !== undefined, o.token !== undefined, o['api-key'] !== undefined].filter(Boolean).length;
  if (ways === 0) throw new UsageError('svc login needs --email E --password-stdin, --token JWT or --api-key KEY');
  if (o.email !== undefined && o.token !== undefined) throw new UsageError('give --email or --token, not both');
  const baseUrl = o['base-url'] ?? (env.SVC_BASE_URL || undefined) ?? stored.base_url;
  const client = new SvcClient({
    baseUrl: baseUrl ?? 'http://127.0.0.1:8000',
    apiKey: o['api-key'],
    accessToken: o.token,
  });
  const next: StoredConfig = { ...stored, ...(baseUrl ? { base_url: baseUrl } : {}) };
  if (o.email !== undefined) {
    // The password never appears on the command line (shell history, ps): stdin or SVC_PASSWORD.
    const password = o['password-stdin'] ? io.readStdin().replace(/\r?\n$/, '') : env.SVC_PASSWORD;
    if (!password)
      throw new UsageError('svc login --email needs the password on stdin (--password-stdin) or in SVC_PASSWORD');
    const session = await client.signin({ email: o.email, password });
    next.access_token = session.access_token;
    next.email = o.email;
  } else if (o.token !== undefined) {
    const me = await client.me();
    next.access_token = o.token;
    next.email = me.email;
  }
  if (o['api-key'] !== undefined) {
    if (!/^svc_[A-Za-z0-9_]+$/.test(o['api-key']))
      throw new UsageError('--api-key does not look like an svc API key (svc_live_…)');
    next.api_key = o['api-key'];
  }
  const written = writeConfig(env, next);
  const exp =
    next.access_token && (o.email !== undefined || o.token !== undefined) ? jwtExpiry(next.access_token) : undefined;
  const what = [
    o.email !== undefined || o.token !== undefined
      ? `access token${next.email ? ` of ${next.email}` : ''}${exp ? ` (expires ${new Date(exp * 1000).toISOString()})` : ''}`
      : null,
    o['api-key'] !== undefined ? 'API key' : null,
  ]
    .filter(Boolean)
    .join(' and ');
  if (o.json)
    io.out(
      JSON.stringify({
        config: written,
        stored: { access_token: Boolean(next.access_token), api_key: Boolean(next.api_key) },
        email: next.email ?? null,
      }),
    );
  else io.out(`stored the ${what} in ${written} (mode 600)`);
  return EXIT.VERIFIED;
}

function wantsJson(args: string[]): boolean {
  return args.includes('--json');
}

/** Runs one command line; returns the exit code. Never throws. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const [command, ...args] = argv;
  try {
    if (command === '--version' || command === '-V' || command === 'version') {
      io.out(`svc ${CLI_VERSION}`);
      return EXIT.VERIFIED;
    }
    if (
      !command ||
      command === '-h' ||
      command === '--help' ||
      command === 'help' ||
      args.includes('--help') ||
      args.includes('-h')
    ) {
      // Asked for: stdout and 0. No command at all is a usage error: stderr and 64.
      if (!command) {
        io.err(HELP);
        return EXIT.USAGE;
      }
      io.out(HELP);
      return EXIT.VERIFIED;
    }
    switch (command) {
      case 'verify':
        return await verify(args, env, io);
      case 'batch': {
        const { values: o, positionals } = parse(args, BATCH_OPTIONS);
        if (positionals.length !== 1)
          throw new UsageError('svc batch needs exactly one items file (JSON lines, or - for stdin)');
        const chunk = positiveNumber('chunk-size', o['chunk-size']);
        if (chunk !== undefined && (!Number.isInteger(chunk) || chunk > 100))
          throw new UsageError('--chunk-size must be a whole number from 1 to 100');
        if (o.jsonl && (o.json || o.out))
          throw new UsageError('--jsonl writes JSON Lines to stdout: not with --json or --out');
        const pollMs = positiveNumber('poll-ms', o['poll-ms']);
        const waitTimeout = positiveNumber('wait-timeout', o['wait-timeout']);
        const session = clientFor(o, env, io);
        return await runBatch(session.client, io, {
          source: positionals[0] as string,
          out: o.out,
          json: o.json === true,
          jsonl: o.jsonl === true,
          verbose: o.verbose === true,
          workflowId: session.workflowId,
          chunkSize: chunk ?? 100,
          pollMs: pollMs ?? 500,
          waitTimeoutMs: (waitTimeout ?? 900) * 1000,
          progress: o['no-progress'] ? false : o.progress === true ? true : io.stderrIsTTY,
          readInput: (src) => readInput(io, src, 'items file'),
        });
      }
      case 'keys':
        return await keys(args, env, io);
      case 'login':
        return await login(args, env, io);
      case 'logout': {
        const { positionals } = parse(args, GLOBAL_OPTIONS);
        if (positionals.length > 0) throw new UsageError('svc logout takes no argument');
        io.out(removeConfig(env) ? `removed ${configPath(env)}` : 'nothing stored');
        return EXIT.VERIFIED;
      }
      case 'completion': {
        const { positionals } = parse(args, GLOBAL_OPTIONS);
        const shell = positionals[0];
        if (positionals.length !== 1 || !(SHELLS as readonly string[]).includes(shell as string))
          throw new UsageError(`svc completion needs one shell: ${SHELLS.join(' or ')}`);
        io.out(completionScript(shell as (typeof SHELLS)[number]));
        return EXIT.VERIFIED;
      }
      case 'health':
        return await health(args, env, io);
      case 'mcp': {
        const { values: o, positionals } = parse(args, GLOBAL_OPTIONS);
        if (positionals.length > 0) throw new UsageError('svc mcp takes no argument');
        const stored = readConfig(env, io.err);
        const apiKey = o['api-key'] ?? (env.SVC_API_KEY || undefined) ?? stored.api_key;
        if (!apiKey) throw new UsageError('svc mcp needs an API key: --api-key, SVC_API_KEY or svc login --api-key');
        const baseUrl = o['base-url'] ?? (env.SVC_BASE_URL || undefined) ?? stored.base_url ?? 'http://127.0.0.1:8000';
        return await runMcpProxy({ baseUrl, apiKey, version: CLI_VERSION, err: io.err });
      }
      default:
        throw new UsageError(`unknown command '${command}'; try svc --help`);
    }
  } catch (err) {
    const code = exitCodeForError(err);
    reportError(err, code, wantsJson(args), io);
    return code;
  }
}

function reportError(err: unknown, code: number, json: boolean, io: Io): void {
  const e = err as Error;
  const info =
    err instanceof SvcApiError
      ? { kind: 'service', status: err.status, detail: err.detail, code: err.code }
      : err instanceof SvcNetworkError
        ? { kind: 'network', detail: err.message }
        : err instanceof UsageError
          ? { kind: 'usage', detail: e.message }
          : err instanceof InputError
            ? { kind: 'input', detail: e.message }
            : { kind: 'internal', detail: e?.message ?? String(err) };
  if (json) io.out(JSON.stringify({ error: { ...info, exit_code: code } }));
  const where = err instanceof SvcApiError ? `HTTP ${err.status}${err.code ? ` ${err.code}` : ''}: ` : '';
  io.err(`svc: ${where}${info.detail}`);
  if (err instanceof UsageError) io.err('Run svc --help for usage.');
}
