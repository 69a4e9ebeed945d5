// Failure types an engine activity throws for outcomes that retrying cannot change
// (docs/isolation.md). Shared by the activities, the workflows' retry policies and the API,
// which answers an engine time-out with the engine's time-out detail (503).

/** The engine ran past its deadline; its worker thread was terminated. Never retried. */
export const ENGINE_TIMEOUT_FAILURE = 'EngineTimeout';
/** The engine failed on this input (its thread ran out of memory or crashed). Never retried. */
export const DETERMINISTIC_ENGINE_FAILURE = 'DeterministicEngineError';
