export { verifyWorkflow, noopWorkflow } from './verify.js';
export { batchWorkflow } from './batch.js';
export { agentWorkflow } from './agents.js';
export { a2aWorkflow } from './a2a.js';
