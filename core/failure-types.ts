// The failure vocabulary: every ApplicationFailure type an activity throws and a workflow's
// retry policy or the API reads (workflows/policies.ts lists which are never retried). Plain
// constants, no imports: activities, workflows (deterministic bundle) and the API share them.

/** The engine ran past its deadline; its worker thread was terminated. Never retried; the API answers the engine's time-out 503. */
export const ENGINE_TIMEOUT_FAILURE = 'EngineTimeout';
/** The engine failed on this input (its thread ran out of memory or crashed). Never retried. */
export const DETERMINISTIC_ENGINE_FAILURE = 'DeterministicEngineError';
/** providerVerifyWorkflow was started for an engine without a provider step (a caller's bug): the run fails at once. */
export const NO_PROVIDER_STEP_FAILURE = 'NoProviderStep';
/** The activity refused its input (it cannot become valid by retrying). */
export const VALIDATION_FAILURE = 'ValidationError';
/** The fact engine's provider did not answer within SVC_PROVIDER_TIMEOUT (batch items). */
export const FACT_PROVIDER_TIMEOUT_FAILURE = 'FactProviderTimeout';
/** A batch item ran past the batch item time-out (core/batch.ts re-exports it as ITEM_TIMEOUT_FAILURE). */
export const BATCH_ITEM_TIMEOUT_FAILURE = 'BatchItemTimeout';
/** A sealed input (agent endpoints, A2A) could not be opened. */
export const SEAL_FAILURE = 'SealError';
/** The agent guard pool could not run the guard (docs/agents.md). */
export const GUARD_UNAVAILABLE_FAILURE = 'GuardUnavailableError';
/** SVC_AUDIT_SECRET_KEY is not set: every audited workflow fails closed. */
export const AUDIT_CONFIG_FAILURE = 'AuditConfigError';
/**
 * The store could not be reached for the driver's whole server selection time-out (core/store.ts,
 * 3 s): the driver's own error class, whose name Temporal gives the failure. Never retried inside
 * a verification (workflows/policies.ts): another attempt would wait the same 3 s, and a stopped
 * or hung store must fail closed within 10 s (issue 22; before, the third attempt ran into math's
 * 10 s deadline). Batch items keep waiting an outage out (RETRY.batchItem).
 */
export const STORE_UNREACHABLE_FAILURE = 'MongoServerSelectionError';
/** The organization's audit chain is broken or its head moved concurrently past the retry budget. */
export const AUDIT_CHAIN_FAILURE = 'AuditChainError';
/** Leaked-key delivery: no SMTP server configured. */
export const MAIL_NOT_CONFIGURED_FAILURE = 'MailNotConfigured';
/** Leaked-key delivery: the revoked key has no active recipient. */
export const NO_RECIPIENT_FAILURE = 'NoRecipient';
/** Leaked-key delivery: no scanner feedback endpoint configured. */
export const FEEDBACK_NOT_CONFIGURED_FAILURE = 'FeedbackNotConfigured';
