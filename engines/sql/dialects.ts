// The SQL dialects the verifier accepts, the names callers may use for them, and the
// lexical rules of each (which quote characters delimit identifiers or strings, which
// comment forms exist). node-sql-parser drops comments silently, so the raw-text lexer
// must know these rules to see what a real server would see.

// The accepted names are part of the request contract (contract/sql.ts).
import { canonicalDialect, SUPPORTED_DIALECTS, type SqlDialect } from '../../contract/sql.js';
export { canonicalDialect, SUPPORTED_DIALECTS, type SqlDialect };

export interface LexProfile {
  /** `name` delimits an identifier. */
  backtickIdent: boolean;
  /** [name] delimits an identifier. */
  bracketIdent: boolean;
  /** "text" is a string literal rather than an identifier. */
  doubleQuoteString: boolean;
  /** Backslash escapes the next character inside string literals. */
  backslashEscapes: boolean;
  /** `#` starts a line comment. */
  hashComment: boolean;
  /** `//` starts a line comment (Snowflake). */
  slashSlashComment: boolean;
  /** `--` starts a comment only when followed by whitespace, a control character or the end (MySQL rule). */
  dashCommentNeedsSpace: boolean;
  /** Block comments nest. */
  nestedBlockComments: boolean;
  /** An unterminated block comment silently runs to the end of input (SQLite) instead of being an error. */
  unterminatedBlockCommentOk: boolean;
  /** `/*! … *\/` and `/*M! … *\/` are executed by the server (MySQL / MariaDB). */
  executableComments: boolean;
  /** $tag$ … $tag$ string literals. */
  dollarQuotes: boolean;
  /** E'…' strings with backslash escapes. */
  escapeStringPrefix: boolean;
  /** '''…''' and """…""" strings. */
  tripleQuotes: boolean;
}

const BASE: LexProfile = {
  backtickIdent: false,
  bracketIdent: false,
  doubleQuoteString: false,
  backslashEscapes: false,
  hashComment: false,
  slashSlashComment: false,
  dashCommentNeedsSpace: false,
  nestedBlockComments: false,
  unterminatedBlockCommentOk: false,
  executableComments: false,
  dollarQuotes: false,
  escapeStringPrefix: false,
  tripleQuotes: false,
};

const MYSQL: LexProfile = {
  ...BASE,
  backtickIdent: true,
  doubleQuoteString: true,
  backslashEscapes: true,
  hashComment: true,
  dashCommentNeedsSpace: true,
  executableComments: true,
};

const POSTGRES: LexProfile = { ...BASE, nestedBlockComments: true, dollarQuotes: true, escapeStringPrefix: true };

export const LEX_PROFILES: Record<SqlDialect, LexProfile> = {
  sqlite: { ...BASE, backtickIdent: true, bracketIdent: true, unterminatedBlockCommentOk: true },
  mysql: MYSQL,
  mariadb: MYSQL,
  postgresql: POSTGRES,
  redshift: POSTGRES,
  transactsql: { ...BASE, bracketIdent: true, nestedBlockComments: true },
  bigquery: {
    ...BASE,
    backtickIdent: true,
    doubleQuoteString: true,
    backslashEscapes: true,
    hashComment: true,
    tripleQuotes: true,
  },
  snowflake: { ...BASE, backslashEscapes: true, slashSlashComment: true, dollarQuotes: true },
  trino: BASE,
  db2: BASE,
  hive: { ...BASE, backtickIdent: true, doubleQuoteString: true, backslashEscapes: true },
};

/** The `database` option node-sql-parser expects for each dialect. */
export const PARSER_DATABASE: Record<SqlDialect, string> = {
  sqlite: 'sqlite',
  mysql: 'mysql',
  mariadb: 'mariadb',
  postgresql: 'postgresql',
  transactsql: 'transactsql',
  bigquery: 'bigquery',
  snowflake: 'snowflake',
  redshift: 'redshift',
  trino: 'trino',
  db2: 'db2',
  hive: 'hive',
};
