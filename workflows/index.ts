export { verifyWorkflow, noopWorkflow } from './verify.js';
