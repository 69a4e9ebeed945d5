// The limits' store queries (organization event counters, rate-limit windows) live in
// persistence/limits.ts (issue 22); this facade keeps the import path of api/ (which reaches the
// store through core/, persistence/README.md).
export * from '../persistence/limits.js';
