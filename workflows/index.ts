export { verifyWorkflow, noopWorkflow } from './verify.js';
export { batchWorkflow } from './batch.js';
export { leakRevocationWorkflow } from './leak-revocation.js';
export { providerVerifyWorkflow } from './provider-verify.js';
export { agentWorkflow } from './agents.js';
export { a2aWorkflow } from './a2a.js';
export { approvalWorkflow, actionOutcomeWorkflow } from './approval.js';
