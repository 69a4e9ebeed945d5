// Malicious-pattern checks on the raw token stream. These run whether or not the parser
// understands the query, and they see what the parser cannot: comments, executable
// comments (already expanded by the lexer), hints, statements after a semicolon.
import type { SqlDialect } from './dialects.js';
import { identName, isWord, significantTokens, splitStatements, type LexResult, type Token } from './lexer.js';
import { issue, type SqlIssue } from './types.js';

/** Statement keywords that change data or schema. */
const DESTRUCTIVE_HEADS = new Set([
  'DROP',
  'DELETE',
  'UPDATE',
  'INSERT',
  'ALTER',
  'TRUNCATE',
  'CREATE',
  'MERGE',
  'REPLACE',
  'UPSERT',
  'RENAME',
  'COMMENT',
  'UNDROP',
]);

/** Statement keywords that administer the server, the session, files or transactions. */
const ADMIN_HEADS = new Set([
  'GRANT',
  'REVOKE',
  'DENY',
  'SET',
  'RESET',
  'ATTACH',
  'DETACH',
  'PRAGMA',
  'LOAD',
  'COPY',
  'UNLOAD',
  'EXPORT',
  'IMPORT',
  'PUT',
  'GET',
  'REMOVE',
  'EXEC',
  'EXECUTE',
  'CALL',
  'DO',
  'HANDLER',
  'SHUTDOWN',
  'KILL',
  'VACUUM',
  'REINDEX',
  'ANALYZE',
  'ANALYSE',
  'OPTIMIZE',
  'REPAIR',
  'FLUSH',
  'PURGE',
  'LOCK',
  'UNLOCK',
  'BACKUP',
  'RESTORE',
  'DECLARE',
  'USE',
  'BEGIN',
  'START',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'END',
  'PREPARE',
  'DEALLOCATE',
  'LISTEN',
  'NOTIFY',
  'UNLISTEN',
  'CHECKPOINT',
  'CLUSTER',
  'DISCARD',
  'REFRESH',
  'SECURITY',
  'INSTALL',
  'UNINSTALL',
  'CHANGE',
  'DBCC',
  'BULK',
  'RECONFIGURE',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'EXPLAIN',
  'MSCK',
  'GO',
]);

/** Statement keywords of a read. */
const READ_HEADS = new Set(['SELECT', 'VALUES', 'TABLE', 'WITH']);
const MAIN_AFTER_WITH = new Set(['SELECT', 'VALUES', 'TABLE', ...DESTRUCTIVE_HEADS]);

/** Functions that pause the server (time-based blind injection). */
export const SLEEP_FUNCTIONS = new Set([
  'sleep',
  'benchmark',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'receive_message',
]);
/** Bytes above which randomblob/zeroblob is a heavy-query delay rather than a value. */
const HEAVY_BLOB_BYTES = 10_000_000;

/** Functions with side effects outside the query: files, the OS, other servers, server or session state. */
export const ADMIN_FUNCTIONS = new Set([
  'load_file',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'lo_import',
  'lo_export',
  'dblink',
  'dblink_exec',
  'dblink_connect',
  'openrowset',
  'opendatasource',
  'openquery',
  'load_extension',
  'readfile',
  'writefile',
  'edit',
  'sys_exec',
  'sys_eval',
  'fts3_tokenizer',
  'set_config',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_file_write',
  'pg_promote',
  'query_to_xml',
  'nextval',
  'setval',
  'lo_unlink',
]);
const ADMIN_PROCEDURES = new Set([
  'xp_cmdshell',
  'xp_regread',
  'xp_regwrite',
  'xp_dirtree',
  'xp_fileexist',
  'xp_subdirs',
  'xp_servicecontrol',
  'xp_availablemedia',
  'sp_oacreate',
  'sp_oamethod',
  'sp_configure',
  'sp_executesql',
  'sp_addlogin',
  'sp_addsrvrolemember',
  'sp_password',
  'sp_makewebtask',
  'sp_execute_external_script',
]);

/** System catalogs and credential tables. */
const CATALOG_TABLES = new Set([
  'sqlite_master',
  'sqlite_schema',
  'sqlite_temp_master',
  'sqlite_temp_schema',
  'sqlite_sequence',
  'sqlite_stat1',
  'sqlite_stat4',
  'pg_shadow',
  'pg_authid',
  'pg_user',
  'pg_roles',
  'pg_group',
  'pg_tables',
  'pg_class',
  'pg_namespace',
  'pg_attribute',
  'pg_proc',
  'pg_database',
  'pg_settings',
  'pg_stat_activity',
  'pg_views',
  'pg_user_mappings',
  'pg_largeobject',
  'sysobjects',
  'syscolumns',
  'sysusers',
  'sysdatabases',
  'syslogins',
  'sysxlogins',
  'dba_users',
  'all_users',
  'all_tables',
  'all_tab_columns',
]);
const CATALOG_SCHEMAS = new Set([
  'information_schema',
  'pg_catalog',
  'performance_schema',
  'mysql',
  'sys',
  'syscat',
  'sysibm',
  'master',
  'msdb',
]);
/** Server-identity probes typical of UNION-based reconnaissance. */
const SYSTEM_INFO_FUNCTIONS = new Set([
  'version',
  'database',
  'user',
  'system_user',
  'session_user',
  'sqlite_version',
  'current_database',
  'schema_name',
  'db_name',
]);
const SYSTEM_INFO_VARIABLES = new Set([
  '@@version',
  '@@hostname',
  '@@datadir',
  '@@basedir',
  '@@servername',
  '@@version_compile_os',
]);
const SET_OPERATORS = ['UNION', 'INTERSECT', 'EXCEPT', 'MINUS'];

/** True for a FROM reference to a system catalog (`sqlite_master`, `information_schema.tables`, …). */
export function isSystemCatalog(db: string | null, table: string): boolean {
  if (db !== null && CATALOG_SCHEMAS.has(db.toLowerCase())) return true;
  return CATALOG_TABLES.has(table.toLowerCase());
}

export interface LexicalContext {
  dialect: SqlDialect;
  /** Lower-cased names (`t` and `schema.t`) of tables declared in schema_ddl (a declared table is never a catalog). */
  declaredTables: Set<string>;
}

export interface LexicalReport {
  issues: SqlIssue[];
  /** Upper-cased leading keyword of each statement (main statement after WITH). */
  statementHeads: string[];
  statementCount: number;
  executableCommentsExpanded: boolean;
}

const isCall = (tokens: Token[], i: number) => tokens[i + 1]?.kind === 'punct' && tokens[i + 1].value === '(';
const lowerName = (t: Token | undefined) => identName(t)?.toLowerCase() ?? null;

export function lexicalChecks(lexed: LexResult, ctx: LexicalContext): LexicalReport {
  const issues: SqlIssue[] = [];
  const seen = new Set<string>();
  const add = (key: string, i: SqlIssue) => {
    if (seen.has(key)) return;
    seen.add(key);
    issues.push(i);
  };
  const sig = significantTokens(lexed.tokens);
  const statements = splitStatements(sig);
  const heads = statements.map(statementHead);

  if (statements.length > 1) {
    add(
      'stacked',
      issue(
        'stacked_statements',
        'critical',
        `The query contains ${statements.length} statements separated by ';' (${heads.join(', ')}); only a single statement is accepted.`,
        'lexer',
        { statement_count: statements.length, statements: heads },
      ),
    );
  }

  heads.forEach((head, idx) => {
    if (DESTRUCTIVE_HEADS.has(head)) {
      add(
        `head:${head}`,
        issue('destructive_statement', 'critical', `${head} statement modifies data or schema.`, 'lexer', {
          statement: head,
          statement_index: idx,
        }),
      );
    } else if (head === 'WAITFOR') {
      add(
        'head:WAITFOR',
        issue('time_based_probe', 'critical', 'WAITFOR delays the server (time-based probe).', 'lexer', {
          function: 'WAITFOR',
        }),
      );
    } else if (ADMIN_HEADS.has(head)) {
      const st = statements[idx];
      const program = head === 'COPY' && st.some((t) => isWord(t, 'PROGRAM'));
      add(
        `head:${head}`,
        issue(
          'administrative_statement',
          'critical',
          program
            ? 'COPY … PROGRAM runs a shell command on the database server.'
            : `${head} is an administrative statement.`,
          'lexer',
          { statement: head, statement_index: idx },
        ),
      );
    }
  });

  statements.forEach((st) => {
    const isRead = READ_HEADS.has(statementHead(st));
    const hasSetOperator = st.some((t) => isWord(t, ...SET_OPERATORS));
    st.forEach((t, i) => {
      const name = lowerName(t);
      // Data-modifying statements nested in parentheses (PostgreSQL writable CTEs, DML subqueries).
      const afterParen = st[i - 1]?.kind === 'punct' && st[i - 1].value === '(';
      if (afterParen && isWord(t, 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'REPLACE', 'UPSERT') && !isCall(st, i)) {
        const kw = t.value.toUpperCase();
        add(
          `head:${kw}`,
          issue('destructive_statement', 'critical', `${kw} statement modifies data or schema.`, 'lexer', {
            statement: kw,
          }),
        );
      }
      // Time-based probes.
      if (name !== null && SLEEP_FUNCTIONS.has(name) && isCall(st, i)) {
        add(
          `sleep:${name}`,
          issue('time_based_probe', 'critical', `${name}() delays the server (time-based probe).`, 'lexer', {
            function: name,
          }),
        );
      }
      if (isWord(t, 'WAITFOR') && isWord(st[i + 1], 'DELAY', 'TIME')) {
        add(
          'sleep:waitfor',
          issue('time_based_probe', 'critical', 'WAITFOR delays the server (time-based probe).', 'lexer', {
            function: 'WAITFOR',
          }),
        );
      }
      if ((name === 'randomblob' || name === 'zeroblob') && isCall(st, i)) {
        const arg = st[i + 2];
        if (arg?.kind === 'number' && Number(arg.value) >= HEAVY_BLOB_BYTES) {
          add(
            `sleep:${name}`,
            issue(
              'time_based_probe',
              'critical',
              `${name}(${arg.value}) is a heavy-query delay (time-based probe).`,
              'lexer',
              { function: name },
            ),
          );
        }
      }
      // File system, OS and cross-server access.
      if (name !== null && ADMIN_FUNCTIONS.has(name) && isCall(st, i)) {
        add(
          `adminfn:${name}`,
          issue(
            'administrative_statement',
            'critical',
            `${name}() has side effects outside the query (files, the OS, other servers or server state).`,
            'lexer',
            { function: name },
          ),
        );
      }
      if (name !== null && ADMIN_PROCEDURES.has(name)) {
        add(
          `adminproc:${name}`,
          issue(
            'administrative_statement',
            'critical',
            `${name} is a system procedure that runs commands or changes configuration.`,
            'lexer',
            { function: name },
          ),
        );
      }
      // SELECT … INTO: files, or a new table.
      if (isRead && isWord(t, 'INTO')) {
        const target = st[i + 1];
        if (isWord(target, 'OUTFILE', 'DUMPFILE')) {
          add(
            'into:file',
            issue(
              'administrative_statement',
              'critical',
              `SELECT … INTO ${target!.value.toUpperCase()} writes a file on the database server.`,
              'lexer',
              {
                statement: `INTO ${target!.value.toUpperCase()}`,
              },
            ),
          );
        } else if (target && (target.kind === 'word' || target.kind === 'quoted_ident') && !isWord(target, 'NULL')) {
          add(
            'into:table',
            issue('destructive_statement', 'critical', 'SELECT … INTO creates a table.', 'lexer', {
              statement: 'SELECT INTO',
            }),
          );
        }
      }
      // System catalogs.
      const catalog = catalogReference(st, i, ctx);
      if (catalog !== null) {
        add(
          `catalog:${catalog}`,
          hasSetOperator
            ? issue(
                'union_catalog_read',
                'critical',
                `A set operation (UNION) reads the system catalog '${catalog}'.`,
                'lexer',
                { table: catalog },
              )
            : issue('system_catalog_read', 'critical', `The query reads the system catalog '${catalog}'.`, 'lexer', {
                table: catalog,
              }),
        );
      }
      if (hasSetOperator) {
        const probe =
          name !== null && SYSTEM_INFO_FUNCTIONS.has(name) && isCall(st, i)
            ? `${name}()`
            : t.kind === 'variable' && SYSTEM_INFO_VARIABLES.has(t.value.toLowerCase())
              ? t.value.toLowerCase()
              : null;
        if (probe !== null) {
          add(
            `sysinfo:${probe}`,
            issue(
              'union_catalog_read',
              'critical',
              `A set operation (UNION) reads server information (${probe}).`,
              'lexer',
              { function: probe },
            ),
          );
        }
      }
    });
  });

  commentChecks(lexed, ctx, add);

  return {
    issues,
    statementHeads: heads,
    statementCount: statements.length,
    executableCommentsExpanded: lexed.executableCommentCount > 0,
  };
}

/** Leading keyword of a statement; for WITH, the keyword of the main statement after the CTEs. */
export function statementHead(st: Token[]): string {
  let i = 0;
  while (st[i]?.kind === 'punct' && st[i].value === '(') i++;
  const first = st[i];
  if (!first) return '';
  if (first.kind !== 'word') return first.text.toUpperCase();
  const head = first.value.toUpperCase();
  if (head !== 'WITH') return head;
  const base = first.depth;
  for (let k = i + 1; k < st.length; k++) {
    const t = st[k];
    if (t.depth === base && t.kind === 'word' && MAIN_AFTER_WITH.has(t.value.toUpperCase()))
      return t.value.toUpperCase();
  }
  return 'WITH';
}

/** `schema.table` in a catalog schema, or a catalog table name (not called, not a declared table, not an alias). */
function catalogReference(st: Token[], i: number, ctx: LexicalContext): string | null {
  const name = lowerName(st[i]);
  if (name === null) return null;
  const prev = st[i - 1];
  const next = st[i + 1];
  const dotAfter = next?.kind === 'punct' && next.value === '.';
  const dotBefore = prev?.kind === 'punct' && prev.value === '.';
  if (CATALOG_SCHEMAS.has(name) && dotAfter && !dotBefore && !ctx.declaredTables.has(name) && !usedAsAlias(st, name)) {
    const member = lowerName(st[i + 2]);
    // `master..sysdatabases` (T-SQL default schema) has a second dot.
    const member2 = st[i + 2]?.value === '.' ? lowerName(st[i + 3]) : null;
    const table = member ?? member2;
    if (table === null || ctx.declaredTables.has(`${name}.${table}`)) return null;
    return `${name}.${table}`;
  }
  if (CATALOG_TABLES.has(name) && !isCall(st, i) && !ctx.declaredTables.has(name) && !dotAfter && !dotBefore)
    return name;
  return null;
}

/** True when `name` is introduced as a table alias: `… AS name`, or `FROM|JOIN|, table name`. */
function usedAsAlias(st: Token[], name: string): boolean {
  return st.some((t, k) => {
    if (lowerName(t) !== name || k === 0) return false;
    const before = st[k - 1];
    if (isWord(before, 'AS')) return true;
    const beforeBefore = st[k - 2];
    return (
      identName(before) !== null &&
      (isWord(beforeBefore, 'FROM', 'JOIN') ||
        (beforeBefore?.kind === 'punct' && (beforeBefore.value === ',' || beforeBefore.value === '.')))
    );
  });
}

/** Comment truncation, optimizer hints, executable comments. */
function commentChecks(lexed: LexResult, ctx: LexicalContext, add: (key: string, i: SqlIssue) => void): void {
  const { tokens } = lexed;
  tokens.forEach((t, idx) => {
    if (t.kind === 'hint') {
      const body = t.value.trim();
      add(
        `hint:${t.start}`,
        issue('optimizer_hint', 'info', `Optimizer hint /*+ ${body.slice(0, 120)} */ present.`, 'lexer', {
          hint: body.slice(0, 500),
          offset: t.start,
        }),
      );
    }
    if (t.kind === 'comment' && t.marker === '/*' && t.text.startsWith('/*!')) {
      add(
        'exec-ignored',
        issue(
          'executable_comment_not_expanded',
          'info',
          `'/*! … */' is an ordinary comment in ${ctx.dialect}; it was not executed or analysed as SQL.`,
          'lexer',
          { offset: t.start },
        ),
      );
    }
    if (t.kind !== 'comment') return;
    const prev = tokens[idx - 1];
    if (!prev || prev.kind !== 'string') return;
    const body = t.value;
    const adjacent = prev.end === t.start;
    const quoteInBody = /['"`]/.test(body);
    const blankBody = body.trim().length === 0 || (t.marker === '/*' && !t.text.endsWith('*/'));
    if (adjacent || quoteInBody || blankBody) {
      add(
        `truncation:${t.start}`,
        issue(
          'comment_truncation',
          'critical',
          `A comment directly after the string literal ${shorten(prev.text)} cuts off the rest of the query.`,
          'lexer',
          { offset: t.start, literal: prev.value.slice(0, 100) },
        ),
      );
    }
  });
  if (lexed.executableCommentCount > 0) {
    add(
      'exec-expanded',
      issue(
        'executable_comment_expanded',
        'info',
        `${lexed.executableCommentCount} MySQL/MariaDB executable comment(s) /*! … */ were expanded and the expanded query analysed.`,
        'lexer',
        { count: lexed.executableCommentCount },
      ),
    );
  }
}

const shorten = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
