export { verifyWorkflow, noopWorkflow } from './verify.js';
export { batchWorkflow } from './batch.js';
export { providerVerifyWorkflow } from './provider-verify.js';
