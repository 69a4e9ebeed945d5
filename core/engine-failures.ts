// Moved to core/failure-types.ts (the one module of failure types); kept for the files that
// still import it by this name.
export { ENGINE_TIMEOUT_FAILURE, DETERMINISTIC_ENGINE_FAILURE } from './failure-types.js';
