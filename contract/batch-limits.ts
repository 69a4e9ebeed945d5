// Batch constants of the contract, in a file with no imports at all so that the workflow
// bundle (core/batch.ts → workflows/batch.ts) can use them without loading zod.
export const BATCH_ITEM_TYPES = ['natural_language', 'logic', 'math', 'code', 'fact', 'sql'] as const;
export type BatchItemType = (typeof BATCH_ITEM_TYPES)[number];

/** Contract: 1–100 items per request (and at most the plan's batch size). */
export const BATCH_MAX_ITEMS = 100;

export const BATCH_CAPACITY_DETAIL = 'Batch capacity reached — retry shortly.';
export const BATCH_FOREIGN_DETAIL = 'Batch job belongs to another organization';
export const BATCH_NOT_FOUND_DETAIL = 'Batch job not found';
