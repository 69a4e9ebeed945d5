// Split (issue 25): one activity file per engine, activities/verify-code.ts and
// activities/verify-sql.ts. Kept as a re-export for the files that still import this name.
export { makeVerifyCodeActivity, withAttestation, type DiagnosticActivityResult } from './verify-code.js';
export { makeVerifySqlActivity, logResolverDefects } from './verify-sql.js';
