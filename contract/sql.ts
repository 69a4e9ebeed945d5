// POST /verify/sql request: `query` and `schema_ddl` required strings, `dialect` optional
// (default sqlite, names mapped case-insensitively, unknown → validation error). Unknown
// keys are ignored; known keys are type-strict (no coercion).
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { SQL_TIMEOUT_DETAIL } from './deadlines.js';
export { SQL_TIMEOUT_DETAIL };

export const SUPPORTED_DIALECTS = [
  'sqlite',
  'mysql',
  'mariadb',
  'postgresql',
  'transactsql',
  'bigquery',
  'snowflake',
  'redshift',
  'trino',
  'db2',
  'hive',
] as const;

export type SqlDialect = (typeof SUPPORTED_DIALECTS)[number];

/** Caller spellings (compared lower-cased, trimmed) → canonical dialect name. */
const DIALECT_ALIASES: Record<string, SqlDialect> = {
  sqlite: 'sqlite',
  sqlite3: 'sqlite',
  mysql: 'mysql',
  mariadb: 'mariadb',
  maria: 'mariadb',
  postgresql: 'postgresql',
  postgres: 'postgresql',
  pg: 'postgresql',
  psql: 'postgresql',
  transactsql: 'transactsql',
  'transact-sql': 'transactsql',
  tsql: 'transactsql',
  't-sql': 'transactsql',
  mssql: 'transactsql',
  sqlserver: 'transactsql',
  'sql server': 'transactsql',
  'sql-server': 'transactsql',
  bigquery: 'bigquery',
  snowflake: 'snowflake',
  redshift: 'redshift',
  trino: 'trino',
  presto: 'trino',
  db2: 'db2',
  hive: 'hive',
};

export function canonicalDialect(name: string): SqlDialect | null {
  return DIALECT_ALIASES[name.trim().toLowerCase()] ?? null;
}

/** Error message for a required string field: missing vs wrong type. */
export function requiredString(field: string) {
  return (iss: { input?: unknown }) => (iss.input === undefined ? `${field} is required` : `${field} must be a string`);
}

export const sqlRequestSchema = nullMeansAbsent(
  z.object({
    query: z.string({ error: requiredString('query') }),
    schema_ddl: z.string({ error: requiredString('schema_ddl') }),
    dialect: z
      .string({ error: requiredString('dialect') })
      .optional()
      .transform((value, ctx): SqlDialect => {
        if (value === undefined) return 'sqlite';
        const dialect = canonicalDialect(value);
        if (dialect === null) {
          ctx.addIssue({
            code: 'custom',
            message: `unsupported dialect '${value.slice(0, 50)}'; supported: ${SUPPORTED_DIALECTS.join(', ')}`,
          });
          return z.NEVER;
        }
        return dialect;
      }),
  }),
);

export type SqlRequestInput = z.input<typeof sqlRequestSchema>;
export type SqlRequest = z.output<typeof sqlRequestSchema>;

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; detail: string };

/** Validates a request body; `detail` is the message for an HTTP 400 `{detail}` body. */
export function validateSqlRequest(body: unknown): ValidationResult<SqlRequest> {
  const parsed = sqlRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, detail: zodDetail(parsed.error) };
}

/** The 400 `detail`: the issue messages joined (messages already name their field). */
export function zodDetail(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length === 0 && i.code === 'invalid_type' ? 'request body must be a JSON object' : i.message))
    .join('; ');
}

/** DiagnosticResult with `admission` (and `attestation` when VERIFIED); developer_fields: constraint_id, is_valid, malicious_classification, ... */
export { admittedDiagnosticSchema as sqlResponseSchema } from './common.js';
