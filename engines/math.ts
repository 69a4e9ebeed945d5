// The /verify/math engine (entry point). Implementation: ./math/*.ts; behaviour, bounds and
// the proof record are documented in docs/math-engine.md.
export { mathRequestSchema, type MathRequest, type MathResponse, type MathProof } from '../contract/math.js';
export { verifyMath, MATH_VERIFIER } from './math/verify.js';
export { mathBatchOutcome, MATH_CONSTRAINTS, blockedConstraint } from './math/batch.js';
export { MATH_LIMITS } from './math/limits.js';
export { ALLOWED_FUNCTIONS, CONSTANTS } from './math/guards.js';
