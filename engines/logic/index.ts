// Public API of the /verify/logic engine. See docs/logic-dsl.md.

export { solveLogic, INTERNAL_VERIFICATION_ERROR, LOGIC_DSL_VERSION } from './solve.js';
export type { LogicResult, LogicProof, LogicErrorReason, SolveLogicOptions, UnsatCoreEntry } from './solve.js';
export { compileLogicQuery } from './compile.js';
export type { CompiledLogicQuery, CompiledVariable } from './compile.js';
export { looksLikeDsl } from './detect.js';
export { LogicInputError, LogicBlockedError, LogicSyntaxError, LogicTypeError } from './errors.js';
export type { LogicBlockedReason } from './errors.js';
export { LOGIC_LIMITS } from './limits.js';
export { LogicPool, getLogicPool, shutdownLogicPool, defaultGraceMs } from './pool.js';
export type {
  LogicPoolOptions,
  LogicPoolStats,
  PoolOutcome,
  PoolFailureReason,
  LogicSolveRequest,
  WorkerSlotState,
} from './pool.js';
export { readZ3TimeoutMs, readPoolSize, logicPoolOptions, DEFAULT_Z3_TIMEOUT_MS, DEFAULT_POOL_SIZE } from './config.js';
export type { SortName, OperatorName } from './operators.js';
