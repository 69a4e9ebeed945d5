// The uploads' store queries live in persistence/uploads.ts (issue 22); this facade keeps the
// import path of api/ (which reaches the store through core/, persistence/README.md).
export * from '../persistence/uploads.js';
