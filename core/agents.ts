// The agents' store queries live in persistence/agents.ts (issue 22); this facade keeps the
// import path of api/ (which reaches the store through core/, persistence/README.md).
export * from '../persistence/agents.js';
