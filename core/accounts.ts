// The accounts' store queries live in persistence/accounts.ts (issue 22); this facade keeps the
// import path of api/ (which reaches the store through core/, persistence/README.md).
export * from '../persistence/accounts.js';
export { runStartupMigrations } from '../persistence/migrations.js';
