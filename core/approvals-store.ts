// The approvals family's store queries live in persistence/approvals.ts (issue 22); this facade is how api/
// reaches them (api/ imports contract/, core/ and workflow types only: persistence/README.md).
export * from '../persistence/approvals.js';
