// The execution check for the postgresql dialect: PostgreSQL itself (PGlite: PostgreSQL
// compiled to WebAssembly, in-process) parses and analyses the query against exactly the
// declared tables, with their declared column types. The query is only PARSED and DESCRIBED
// (the extended protocol's Parse + Describe, i.e. what PREPARE does): it is never executed.
// PostgreSQL's own name resolution and type checking then decide schema_violation /
// execution_error, and its grammar decides what is valid PostgreSQL.
//
// The caller's DDL text is never executed: the declared tables are rebuilt from tokens as
// `CREATE TABLE "name" ("col" type, …)` where each type is a plain type name with optional
// numeric modifiers and array brackets (no DEFAULT, CHECK, GENERATED or any other expression).
//
// One PGlite instance per PgCheck (one per worker process, created by its composition root), in
// a worker thread (pg-worker.mjs): its start-up costs seconds and must not hold the caller's
// event loop. It starts on the first postgresql check and stops after an idle period (its
// memory is the largest of the worker's; docs/performance.md, memory). Each distinct schema is created once in
// its own PostgreSQL schema (`svc_s_<hash>`), kept in a small LRU and dropped on eviction; a
// schema with qualified table names (`sales.orders`) is created inside the request's
// transaction instead and rolled back. Every check runs in a transaction that is rolled back,
// and checks run one at a time.
import { createHash, randomBytes } from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEX_PROFILES } from './dialects.js';
import { auxiliaryEnv } from '../../core/child-env.js';
import {
  identName,
  isWord,
  lexSql,
  parenthesisedItems,
  significantTokens,
  splitStatements,
  SqlLexError,
  type Token,
} from './lexer.js';

/** PostgreSQL's analysed parse tree (nodeToString text) and the catalog names of the oids in it. */
export interface PgTreeText {
  text: string;
  relations: Record<string, { schema: string; name: string }>;
  functions: Record<string, { schema: string; name: string; volatility: string }>;
  operators: Record<string, string>;
}

export type PgErrorKind = 'syntax' | 'undefined_table' | 'undefined_column' | 'ambiguous_column' | 'other';

export type PgCheckResult =
  | {
      ran: true;
      ok: true;
      columns: Array<{ name: string; type_oid: number }>;
      tree: PgTreeText | null;
      ms: number;
      schema_cached: boolean;
      /** PostgreSQL's server_version (PGlite's). */
      version?: string | null;
    }
  | {
      ran: true;
      ok: false;
      kind: PgErrorKind;
      sqlstate: string;
      message: string;
      ms: number;
      schema_cached: boolean;
      version?: string | null;
      position?: number;
      line?: number;
    }
  /** The check could not run (engine unavailable, schema not representable): the verdict rests on the parser. */
  | { ran: false; reason: string };

/** Tables above this make the check unavailable (building them would hold the event loop too long). */
export const PG_CHECK_MAX_TABLES = 200;
const SCHEMA_CACHE_SIZE = 16;

const CONSTRAINT_WORDS = new Set([
  'CONSTRAINT',
  'PRIMARY',
  'FOREIGN',
  'UNIQUE',
  'CHECK',
  'EXCLUDE',
  'PERIOD',
  'LIKE',
  'INDEX',
  'KEY',
  'FULLTEXT',
  'SPATIAL',
]);
/** Words that end a column's type: everything after them is a column constraint, never sent. */
const TYPE_END_WORDS = new Set([
  'NOT',
  'NULL',
  'DEFAULT',
  'PRIMARY',
  'REFERENCES',
  'CHECK',
  'UNIQUE',
  'CONSTRAINT',
  'COLLATE',
  'GENERATED',
  'AUTO_INCREMENT',
  'AUTOINCREMENT',
  'IDENTITY',
  'COMMENT',
  'ON',
  'AS',
  'STORED',
  'VIRTUAL',
  'ENCODE',
  'DISTKEY',
  'SORTKEY',
  'COMPRESSION',
  'STORAGE',
]);
const TABLE_MODIFIERS = new Set(['GLOBAL', 'LOCAL', 'TEMP', 'TEMPORARY', 'UNLOGGED']);

export class PgSchemaUnsupported extends Error {}

interface PgTable {
  qualifier: string | null;
  name: string;
  columns: Array<{ name: string; type: string }>;
}

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;
/** PostgreSQL folds unquoted identifiers to lower case. */
const pgName = (t: Token): string | null =>
  t.kind === 'quoted_ident' ? t.value : t.kind === 'word' ? t.value.toLowerCase() : null;

/** A column type as plain tokens: words, then optionally `( n [, n] )`, more words, `[ ]` pairs. */
function typeText(def: Token[], from: number, table: string, column: string): string {
  const parts: string[] = [];
  let i = from;
  for (; i < def.length; i++) {
    const t = def[i];
    if (t.kind === 'word' && TYPE_END_WORDS.has(t.value.toUpperCase())) break;
    if (t.kind === 'word' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)) {
      parts.push(t.value.toLowerCase());
      continue;
    }
    if (t.kind === 'punct' && t.value === '(') {
      const nums: string[] = [];
      let j = i + 1;
      for (; j < def.length; j++) {
        const u = def[j];
        if (u.kind === 'number' && /^\d{1,4}$/.test(u.value)) nums.push(u.value);
        else if (u.kind === 'punct' && u.value === ',') continue;
        else break;
      }
      if (!(def[j]?.kind === 'punct' && def[j].value === ')') || nums.length === 0 || nums.length > 2) {
        throw new PgSchemaUnsupported(`${table}.${column}: type modifiers other than one or two numbers`);
      }
      parts.push(`(${nums.join(', ')})`);
      i = j;
      continue;
    }
    if (t.kind === 'punct' && t.value === '[' && def[i + 1]?.kind === 'punct' && def[i + 1].value === ']') {
      parts.push('[]');
      i++;
      continue;
    }
    throw new PgSchemaUnsupported(`${table}.${column}: unsupported token '${t.text.slice(0, 20)}' in the column type`);
  }
  if (parts.length === 0 || parts.length > 8)
    throw new PgSchemaUnsupported(`${table}.${column}: no readable column type`);
  return parts.join(' ').replace(/ \(/g, '(').replace(/ \[\]/g, '[]');
}

/** The declared tables with their column types, read from tokens (never executed). */
export function readPgSchema(ddl: string): PgTable[] {
  let tokens: Token[];
  try {
    tokens = significantTokens(lexSql(ddl, LEX_PROFILES.postgresql).tokens);
  } catch (err) {
    if (err instanceof SqlLexError) throw new PgSchemaUnsupported(err.message);
    throw err;
  }
  const tables: PgTable[] = [];
  for (const st of splitStatements(tokens)) {
    if (!isWord(st[0], 'CREATE')) continue; // indexes, comments, grants… are irrelevant to name resolution
    let i = 1;
    if (isWord(st[i], 'OR') && isWord(st[i + 1], 'REPLACE')) i += 2;
    while (isWord(st[i]) && TABLE_MODIFIERS.has(st[i].value.toUpperCase())) i++;
    if (isWord(st[i], 'VIEW', 'MATERIALIZED', 'RECURSIVE'))
      throw new PgSchemaUnsupported('views are not rebuilt for the PostgreSQL check');
    if (!isWord(st[i], 'TABLE')) continue;
    i++;
    if (isWord(st[i], 'IF') && isWord(st[i + 1], 'NOT') && isWord(st[i + 2], 'EXISTS')) i += 3;
    const parts: string[] = [];
    while (st[i] && identName(st[i]) !== null) {
      const n = pgName(st[i]);
      if (n === null) break;
      parts.push(n);
      i++;
      if (st[i]?.kind === 'punct' && st[i].value === '.') i++;
      else break;
    }
    if (parts.length === 0 || parts.length > 2) throw new PgSchemaUnsupported('CREATE TABLE with an unreadable name');
    const name = parts[parts.length - 1];
    const qualifier = parts.length === 2 ? parts[0] : null;
    const open = st[i];
    if (!(open?.kind === 'punct' && open.value === '('))
      throw new PgSchemaUnsupported(`CREATE TABLE ${name} without a column list`);
    const defs = parenthesisedItems(st, i);
    if (!defs) throw new PgSchemaUnsupported(`CREATE TABLE ${name}: unbalanced parentheses`);
    const columns: PgTable['columns'] = [];
    for (const def of defs) {
      if (def.length === 0) throw new PgSchemaUnsupported(`CREATE TABLE ${name}: empty definition`);
      if (def[0].kind === 'word' && CONSTRAINT_WORDS.has(def[0].value.toUpperCase())) continue;
      const col = pgName(def[0]);
      if (col === null) throw new PgSchemaUnsupported(`CREATE TABLE ${name}: unreadable column definition`);
      columns.push({ name: col, type: typeText(def, 1, name, col) });
    }
    if (columns.length === 0) throw new PgSchemaUnsupported(`CREATE TABLE ${name} declares no column`);
    tables.push({ qualifier, name, columns });
  }
  if (tables.length === 0) throw new PgSchemaUnsupported('no CREATE TABLE statement');
  if (tables.length > PG_CHECK_MAX_TABLES) throw new PgSchemaUnsupported(`more than ${PG_CHECK_MAX_TABLES} tables`);
  return tables;
}

function createStatements(tables: PgTable[], defaultSchema: string | null): string {
  const out: string[] = [];
  const qualifiers = new Set(tables.map((t) => t.qualifier).filter((q): q is string => q !== null));
  for (const q of qualifiers) out.push(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(q)};`);
  for (const t of tables) {
    const target =
      t.qualifier !== null
        ? `${quoteIdent(t.qualifier)}.${quoteIdent(t.name)}`
        : defaultSchema !== null
          ? `${quoteIdent(defaultSchema)}.${quoteIdent(t.name)}`
          : quoteIdent(t.name);
    out.push(`CREATE TABLE ${target} (${t.columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')});`);
  }
  return out.join('\n');
}

export function classifyPgError(sqlstate: string): PgErrorKind {
  if (sqlstate === '42601') return 'syntax';
  if (sqlstate === '42P01') return 'undefined_table';
  if (sqlstate === '42703' || sqlstate === '42P10') return sqlstate === '42703' ? 'undefined_column' : 'other';
  if (sqlstate === '42702') return 'ambiguous_column';
  return 'other';
}

// ---- the PGlite thread -------------------------------------------------------------------

const WORKER_URL = new URL('./pg-worker.mjs', import.meta.url);

/**
 * PostgreSQL settings of the PGlite instance (beside PGlite's own start parameters). The check
 * never executes a query and never reads a row: its buffers only ever hold catalog pages, so
 * PostgreSQL's default 128 MB of shared buffers bought nothing but resident memory (about 120 MB
 * of the thread's; docs/performance.md, memory).
 */
const PG_SETTINGS = ['shared_buffers=8MB', 'temp_buffers=1MB', 'work_mem=1MB', 'maintenance_work_mem=1MB'];

/**
 * V8 flags of PGlite's process (session 16; SVC_SQL_PG_V8_FLAGS overrides them, empty: V8's
 * defaults). `--liftoff-only`: PostgreSQL's 9 MB of WebAssembly stays in V8's baseline code;
 * by default V8 also recompiles its hot functions with TurboFan, whose code and compile buffers
 * held ~60–100 MB of the process (four anonymous mappings of 24–40 MB that the flag removes).
 * `--optimize-for-size`: smaller V8 heaps (−15 MB). Measured on PGlite alone (docs/performance.md
 * "Memory", session 16): after 300 checks over 24 schemas 294–320 → 198–204 MB, and −27 to −31 %
 * CPU (TurboFan's compiles cost more than they save over a few hundred checks; after ~1,500 in one
 * instance they have paid off, and each further check costs ~15 % more without them). The SQL
 * suites give the same verdicts.
 */
export const PG_PROCESS_V8_FLAGS: readonly string[] = ['--liftoff-only', '--optimize-for-size'];

/**
 * glibc's malloc thresholds in PGlite's process (session 16): PGlite keeps PostgreSQL's files in
 * memory (MEMFS: the 39 MB data directory, its WAL segment, the share/ bundle) as many typed
 * arrays, and the dump's untar at start frees tens of MB of them; with glibc's dynamic thresholds
 * the main arena kept that memory (up to 64 MB per arena). Fixed at 128 KiB, large blocks are
 * mapped and returned at once: −15 MB once ready, −15 to −20 MB at the start's peak, the same CPU
 * (docs/performance.md "Memory", session 16). Set on the child only, whatever the worker's own.
 */
export const PG_PROCESS_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/**
 * PGlite's process environment: the worker's without the service's settings and secrets (every
 * `SVC_*`, `MONGODB_URI`: payload keys, provider keys, the store's password), which that process,
 * running callers' SQL, never reads (its settings come in the init message); plus the malloc
 * thresholds. Session 22 review: the one builder the stack's auxiliary processes use (core/child-env.ts).
 */
export function pgProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return auxiliaryEnv(env, PG_PROCESS_MALLOC_ENV);
}

interface Pending {
  resolve: (r: PgCheckResult) => void;
  timer: NodeJS.Timeout;
}

/**
 * PGlite's process (a child of the worker, forked from pg-worker.mjs): its exit at an idle release
 * returns all of its memory to the system. A worker thread's exit left ~275 MB of its ~440 MB in
 * the process's allocator arenas (bench/pool-memory.ts), so a thread could not really be released.
 */
class PgProcess {
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(init: Record<string, unknown>, v8Flags: readonly string[]) {
    this.child = fork(fileURLToPath(WORKER_URL), [], {
      // Plain JavaScript: none of the parent's loaders or preloads (tsx, the store capture).
      // --expose-gc: the child collects what initdb and the dump left once it is ready (a few
      // hundred MB that otherwise stayed resident until some later collection).
      // v8Flags: PG_PROCESS_V8_FLAGS unless configured otherwise.
      execArgv: ['--expose-gc', ...v8Flags],
      env: pgProcessEnv(process.env),
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.exited = new Promise((r) => this.child.once('exit', () => r()));
    this.child.send({ type: 'init', ...init });
  }

  on(event: 'message', fn: (msg: { type: string; id?: number; [k: string]: unknown }) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  on(event: 'exit', fn: (code: number | null) => void): void;
  on(event: 'message' | 'error' | 'exit', fn: (arg: never) => void): void {
    this.child.on(event, fn as (...a: unknown[]) => void);
  }

  postMessage(msg: unknown): void {
    this.child.send(msg as object);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Keeps the worker process alive while a check waits (ref), or not (unref). */
  ref(): void {
    this.child.ref();
    this.child.channel?.ref();
  }

  unref(): void {
    this.child.unref();
    this.child.channel?.unref();
  }

  async terminate(): Promise<void> {
    this.ref(); // the caller waits for the exit: keep the event loop alive until it comes
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

interface PgWorker {
  worker: PgProcess;
  ready: Promise<boolean>;
  pending: Map<number, Pending>;
  /** Its copy of the data directory (on-disk mode), removed when the process exits. */
  removed?: Promise<void>;
}

/**
 * The check's switch, deadlines and idle release: the composition root passes them from
 * core/config.ts (this engine reads no environment). DEFAULT_PG_CHECK_LIMITS are the documented
 * defaults (docs/configuration.md).
 */
export interface PgCheckLimits {
  /** false: the check never runs (SVC_SQL_PG_CHECK=0); postgresql verdicts then need no engine only where certain. */
  enabled: boolean;
  /** How long a request waits at most for PGlite to finish starting (never past its own budget). */
  bootWaitMs: number;
  /** Deadline of one check (queue included); past it the worker is replaced. */
  timeoutMs: number;
  /** PGlite is stopped (its memory released) after this long without a check; 0: kept for the process's life. */
  idleReleaseMs: number;
  /**
   * A directory where the fresh data directory of a first start is kept (SVC_SQL_PG_DATADIR_CACHE):
   * a later process's first start loads it instead of running initdb, whose peak is ~700 MB
   * against ~330 MB for a load (docs/performance.md, memory). Absent: kept in memory only.
   */
  dataDirCache?: string;
  /**
   * Session 18 (SVC_SQL_PG_DATADIR_ON_DISK, on by default where dataDirCache is set): PostgreSQL's
   * files on disk under dataDirCache, a fresh copy of the unpacked template per start, instead of
   * PGlite's in-memory file system and the dump unpacked at every start (−65 MB of PGlite's
   * process once ready, −125 MB at its start's peak; docs/performance.md, session 18).
   */
  dataDirOnDisk?: boolean;
  /** V8 flags of PGlite's process (SVC_SQL_PG_V8_FLAGS); absent: PG_PROCESS_V8_FLAGS, empty: V8's defaults. */
  v8Flags?: readonly string[];
}

export const DEFAULT_PG_CHECK_LIMITS: Readonly<PgCheckLimits> = {
  enabled: true,
  bootWaitMs: 7_000,
  timeoutMs: 4_000,
  idleReleaseMs: 300_000,
};

/** What one check may spend, start-up wait included (the activity's remaining budget). */
export interface PgCheckBudget {
  budgetMs?: number;
}

export type PgCheckState = 'off' | 'stopped' | 'starting' | 'ready';

/** What the owner may log: PGlite ready (with its start time), released when idle, or failed to start. */
/** PGlite's version names the cached data directory: another version's dump is never loaded. */
const PGLITE_VERSION: string = (() => {
  // Its `exports` map hides package.json: read the one above the resolved entry.
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
    } catch {
      // no package.json at this level
    }
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
})();
/** First line of a cached dump; the second is the SHA-256 of the gzip bytes that follow. */
const DUMP_MAGIC = 'svc-pglite-datadir-1';

/** The cached dump's file (memory mode loads it; on disk it rebuilds a lost template). */
export function dataDirCacheFile(dir: string): string {
  return path.join(dir, `pglite-${PGLITE_VERSION}-datadir.svcdump`);
}

/**
 * The cached dump if it is whole (its SHA-256 matches); null otherwise (absent, torn or
 * corrupted: the start then runs initdb). Read once per PGlite start (~4.5 MB). The hash catches
 * damage, not a writer who means harm: the directory has the trust of the store's own files.
 */
export function readCachedDataDir(dir: string): Uint8Array | null {
  try {
    const buf = readFileSync(dataDirCacheFile(dir));
    const head = buf.subarray(0, 200).toString('latin1').split('\n');
    if (head[0] !== DUMP_MAGIC || !/^[0-9a-f]{64}$/.test(head[1] ?? '')) return null;
    const body = buf.subarray(head[0].length + 1 + 64 + 1);
    if (createHash('sha256').update(body).digest('hex') !== head[1]) return null;
    return new Uint8Array(body);
  } catch {
    return null;
  }
}

/** Writes the dump beside its hash, atomically (a temporary file renamed): readers see all or nothing. */
export function writeCachedDataDir(dir: string, dump: Uint8Array): void {
  mkdirSync(dir, { recursive: true });
  const file = dataDirCacheFile(dir);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const hash = createHash('sha256').update(dump).digest('hex');
  writeFileSync(tmp, Buffer.concat([Buffer.from(`${DUMP_MAGIC}\n${hash}\n`, 'latin1'), dump]));
  renameSync(tmp, file);
}

function dropCachedDataDir(dir: string): void {
  rmSync(dataDirCacheFile(dir), { force: true });
}

/** The unpacked fresh data directory (on-disk mode): never opened itself, only copied. */
export function dataDirTemplate(dir: string): string {
  return path.join(dir, `pglite-${PGLITE_VERSION}-datadir`);
}

/** Where the running PGlite processes' copies live: `<pid of their owner>-<random>` (on-disk mode). */
export function liveDataDirs(dir: string): string {
  return path.join(dir, 'live');
}

/**
 * Removes the copies (and half-built templates) whose owner process is gone: a worker killed
 * with its PGlite leaves its copy (~39 MB of files) behind; the next start of any process that
 * shares the directory removes it. Owners alive (this one included) keep theirs.
 */
export function sweepLiveDataDirs(dir: string): void {
  const root = liveDataDirs(dir);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return; // nothing there yet
  }
  for (const name of names) {
    const owner = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(owner) || owner === process.pid || processAlive(owner)) continue;
    rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** `cache_failed`: the fresh data directory could not be written to dataDirCache (the check runs on; the next process runs initdb). */
export type PgCheckEvent = 'started' | 'released' | 'failed' | 'cache_failed';

/** How a start got its data directory: initdb, the cached dump loaded, or (on disk) a copy of the template. */
export type PgDataDirSource = 'initdb' | 'loaded' | 'copied';

/**
 * The PostgreSQL check of one process: owns the PGlite thread, which is started on the first
 * postgresql check (or by start()) and stopped after `idleReleaseMs` without a check, so a
 * worker that sees no postgresql request holds no PostgreSQL. Created by the worker's composition
 * root (workers/verification-worker.ts) and passed to the SQL activity; tests and benches create
 * their own. While it starts or after it failed, a check answers `{ran: false}` and the SQL
 * engine fails closed (UNVERIFIABLE `sql_verifier.engine_not_run`, never VERIFIED).
 */
export class PgCheck {
  private current: PgWorker | null = null;
  private bootFailure: string | null = null;
  private pgVersion: string | null = null;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  /** The fresh data directory (gzip, ~4.5 MB) of the first start: a restart loads it instead of running initdb. */
  private dataDir: Uint8Array | null = null;
  private readonly counts = { starts: 0, releases: 0, checks: 0 };

  constructor(
    readonly limits: Readonly<PgCheckLimits> = DEFAULT_PG_CHECK_LIMITS,
    private readonly onEvent: (
      event: PgCheckEvent,
      detail: { ms?: number; reason?: string; dataDir?: PgDataDirSource },
    ) => void = () => undefined,
  ) {}

  state(): PgCheckState {
    if (!this.limits.enabled) return 'off';
    if (this.current === null) return 'stopped';
    return this.ready ? 'ready' : 'starting';
  }

  private ready = false;

  /** PostgreSQL's version once PGlite has started (null before). */
  version(): string | null {
    return this.pgVersion;
  }

  stats() {
    return { state: this.state(), ...this.counts };
  }

  /** The process id of PGlite's process while it runs or starts (benches and tests read its memory and flags). */
  processId(): number | null {
    return this.current?.worker.pid ?? null;
  }

  /** Starts PGlite unless it runs or is starting; resolves true once it is ready, false if it failed or is off. */
  start(): Promise<boolean> {
    if (!this.limits.enabled) return Promise.resolve(false);
    if (this.current === null) this.current = this.spawn();
    return this.current.ready;
  }

  /**
   * Parses and describes `query` in PostgreSQL against the tables declared in `ddl`. Never
   * executes the query or the DDL text. Resolves `{ran: false}` when the check cannot run within
   * `budget.budgetMs` (PGlite still starting past it, failed, off, a schema it cannot rebuild).
   */
  async check(query: string, ddl: string, budget: PgCheckBudget = {}): Promise<PgCheckResult> {
    if (!this.limits.enabled) return { ran: false, reason: 'the PostgreSQL check is disabled (SVC_SQL_PG_CHECK=0)' };
    let tables: PgTable[];
    try {
      tables = readPgSchema(ddl);
    } catch (err) {
      if (err instanceof PgSchemaUnsupported)
        return { ran: false, reason: `schema_ddl cannot be rebuilt for PostgreSQL: ${err.message}` };
      throw err;
    }
    // The cached schemas of other requests live in the same instance: a query that names them is
    // not checked there (its verdict rests on the parser; the resolver reports the unknown table).
    if (/svc_s_/i.test(query))
      return { ran: false, reason: 'the query names an internal schema of the PostgreSQL check' };
    const started = performance.now();
    const budgetMs = budget.budgetMs ?? this.limits.bootWaitMs + this.limits.timeoutMs;
    this.counts.checks++;
    this.holdOpen();
    const w = (void this.start(), this.current);
    if (w === null) return { ran: false, reason: 'the PostgreSQL worker is not running' };
    // A cold start (the first postgresql request, or the first after an idle release) is waited
    // for within the request's own budget, so it gets PostgreSQL's verdict when the start fits.
    const waitMs = Math.max(0, Math.min(this.limits.bootWaitMs, budgetMs - MIN_CHECK_MS));
    let waitTimer: NodeJS.Timeout | undefined;
    const ready = await Promise.race([
      w.ready,
      new Promise<'wait'>((r) => (waitTimer = setTimeout(() => r('wait'), waitMs))),
    ]);
    clearTimeout(waitTimer);
    if (ready === 'wait') {
      this.releaseLater();
      return { ran: false, reason: `PGlite is still starting (waited ${Math.round(waitMs)} ms)` };
    }
    if (ready === false) {
      this.releaseLater();
      return {
        ran: false,
        reason: this.bootFailure
          ? `PGlite could not start: ${this.bootFailure}`
          : 'the PostgreSQL worker is not running',
      };
    }
    const timeoutMs = Math.max(MIN_CHECK_MS, Math.min(this.limits.timeoutMs, budgetMs - (performance.now() - started)));
    const result = await this.send(w, query, ddl, tables, timeoutMs);
    this.releaseLater();
    return result;
  }

  private send(w: PgWorker, query: string, ddl: string, tables: PgTable[], timeoutMs: number): Promise<PgCheckResult> {
    const qualified = tables.some((t) => t.qualifier !== null);
    const hash = createHash('sha256').update(ddl).digest('hex').slice(0, 24);
    const schemaName = `svc_s_${hash}`;
    const msg = {
      type: 'check',
      id: this.nextId++,
      query,
      cacheable: !qualified,
      schemaName,
      createSql: createStatements(tables, qualified ? null : schemaName),
      searchPath: qualified ? [...new Set(tables.map((t) => t.qualifier ?? 'public'))] : [schemaName],
    };
    return new Promise<PgCheckResult>((resolve) => {
      const timer = setTimeout(() => {
        w.pending.delete(msg.id);
        // A check that overruns is not waited for: the worker (and its queue) is replaced.
        if (this.current === w) this.current = null;
        void w.worker.terminate();
        resolve({ ran: false, reason: `the PostgreSQL check exceeded ${Math.round(timeoutMs)} ms` });
      }, timeoutMs);
      // The line of PostgreSQL's cursor position (placeholders rewritten to $n keep the lines).
      const withLine = (r: PgCheckResult) =>
        resolve(r.ran && !r.ok && r.position !== undefined ? { ...r, line: lineAt(query, r.position) } : r);
      w.pending.set(msg.id, { resolve: withLine, timer });
      w.worker.ref();
      w.worker.postMessage(msg);
    });
  }

  /** A check is running: no idle release meanwhile. */
  private holdOpen(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Arms the idle release: PGlite stops after `idleReleaseMs` without a check. */
  private releaseLater(): void {
    if (this.limits.idleReleaseMs <= 0) return;
    this.holdOpen();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      const w = this.current;
      // Never a start in progress (the ready handler arms the release again), nor a check.
      if (w === null || !this.ready || w.pending.size > 0) return;
      this.current = null;
      this.ready = false;
      this.counts.releases++;
      void w.worker.terminate();
      this.onEvent('released', {});
    }, this.limits.idleReleaseMs);
    this.idleTimer.unref();
  }

  private spawn(): PgWorker {
    this.counts.starts++;
    this.ready = false;
    const spawnedAt = performance.now();
    const cache = this.limits.dataDirCache;
    const disk = cache && this.limits.dataDirOnDisk ? this.diskDirs(cache) : null;
    if (cache && this.limits.dataDirOnDisk && disk === null) this.onEvent('cache_failed', { reason: this.diskFailure });
    // This process's own dump first; else the one a first start of any process left on disk.
    // On disk with a template there, no dump is read or sent.
    const copies = disk !== null && existsSync(disk.template);
    if (this.dataDir === null && cache && !copies) this.dataDir = readCachedDataDir(cache);
    const loaded = copies ? null : this.dataDir;
    const worker = new PgProcess(
      {
        schemaCacheSize: SCHEMA_CACHE_SIZE,
        settings: PG_SETTINGS,
        dataDir: loaded ?? undefined,
        ...(disk ? { disk } : {}),
      },
      this.limits.v8Flags ?? PG_PROCESS_V8_FLAGS,
    );
    worker.unref();
    const pending = new Map<number, Pending>();
    let markReady: (ok: boolean) => void = () => undefined;
    const ready = new Promise<boolean>((r) => (markReady = r));
    const w: PgWorker = { worker, ready, pending };
    let markRemoved: () => void = () => undefined;
    if (disk) w.removed = new Promise((r) => (markRemoved = r));
    const down = (reason: string) => {
      markReady(false);
      for (const [, p] of pending) {
        clearTimeout(p.timer);
        p.resolve({ ran: false, reason });
      }
      pending.clear();
      if (this.current === w) {
        this.current = null;
        this.ready = false;
      }
    };
    worker.on('message', (msg: { type: string; id?: number; [k: string]: unknown }) => {
      if (msg.type === 'ready') {
        this.pgVersion = (msg.version as string | null) ?? null;
        this.bootFailure = null;
        if (this.current === w) this.ready = true;
        markReady(true);
        this.onEvent('started', {
          ms: Math.round(performance.now() - spawnedAt),
          dataDir: (msg.dataDir as PgDataDirSource | undefined) ?? (loaded ? 'loaded' : 'initdb'),
        });
        // Started by start() alone (no check waiting): released if no check ever comes.
        if (pending.size === 0 && this.idleTimer === null) this.releaseLater();
        return;
      }
      if (msg.type === 'data_dir') {
        if (msg.dump instanceof Uint8Array) {
          // On disk the template serves later starts: the dump is only written for other processes.
          if (!disk) this.dataDir = msg.dump;
          if (cache) {
            try {
              writeCachedDataDir(cache, msg.dump);
            } catch (err) {
              this.onEvent('cache_failed', { reason: (err as Error).message });
            }
          }
        }
        return;
      }
      if (msg.type === 'boot_failed') {
        // A dump that does not start is never tried again: the next start runs initdb.
        if (loaded) {
          this.dataDir = null;
          if (cache) dropCachedDataDir(cache);
        }
        // A template PostgreSQL does not start from is built again by the next start.
        if (disk) rmSync(disk.template, { recursive: true, force: true });
        this.bootFailure = String(msg.message);
        this.onEvent('failed', { reason: this.bootFailure });
        return;
      }
      const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
      if (!p) return;
      pending.delete(msg.id!);
      clearTimeout(p.timer);
      if (pending.size === 0) worker.unref();
      p.resolve(this.resultOf(msg));
    });
    worker.on('error', (err) => down(`the PostgreSQL worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      // Its copy of the data directory goes with it (off the event loop: ~1,000 files).
      if (disk)
        void rm(disk.live, { recursive: true, force: true })
          .catch(() => undefined)
          .then(markRemoved);
      down(
        this.bootFailure
          ? `PGlite could not start: ${this.bootFailure}`
          : `the PostgreSQL worker exited (code ${code})`,
      );
    });
    return w;
  }

  /** The template and this start's own copy (on-disk mode); copies of dead owners are swept first. */
  private diskDirs(cache: string): { template: string; live: string } | null {
    try {
      sweepLiveDataDirs(cache);
      mkdirSync(liveDataDirs(cache), { recursive: true });
    } catch (err) {
      // A folder that cannot be written: this start keeps the files in memory, as before.
      this.diskFailure = (err as Error).message;
      return null;
    }
    return {
      template: dataDirTemplate(cache),
      live: path.join(liveDataDirs(cache), `${process.pid}-${randomBytes(4).toString('hex')}`),
    };
  }

  private diskFailure = '';

  private resultOf(msg: { type: string; [k: string]: unknown }): PgCheckResult {
    if (msg.type === 'unavailable') return { ran: false, reason: String(msg.reason) };
    if (msg.ok === true)
      return {
        ran: true,
        ok: true,
        columns: msg.columns as Array<{ name: string; type_oid: number }>,
        tree: (msg.tree as PgTreeText | null | undefined) ?? null,
        ms: round(Number(msg.ms)),
        schema_cached: msg.schemaCached === true,
        version: this.pgVersion,
      };
    const sqlstate = String(msg.sqlstate);
    const position = typeof msg.position === 'number' ? msg.position : undefined;
    return {
      ran: true,
      ok: false,
      kind: classifyPgError(sqlstate),
      sqlstate,
      message: String(msg.message),
      ms: round(Number(msg.ms)),
      schema_cached: msg.schemaCached === true,
      version: this.pgVersion,
      ...(position ? { position } : {}),
    };
  }

  /** Stops PGlite (process shutdown, tests); a later check starts it again. */
  async shutdown(): Promise<void> {
    this.holdOpen();
    const w = this.current;
    this.current = null;
    this.ready = false;
    if (w) {
      await w.worker.terminate();
      // A stopping worker process leaves no copy behind (a killed one's is swept by the next start).
      await w.removed;
    }
  }
}

/** The least time a check is given once PGlite runs (a cached schema's check takes a few ms). */
const MIN_CHECK_MS = 250;

const round = (ms: number) => Math.round(ms * 10) / 10;

/** 1-based line of a 1-based character position (PostgreSQL counts characters, not bytes). */
export function lineAt(text: string, position: number): number {
  let line = 1;
  let i = 0;
  for (const ch of text) {
    if (++i >= position) break;
    if (ch === '\n') line++;
  }
  return line;
}
