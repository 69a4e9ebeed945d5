// Loaded by path (DataConverter.failureConverterPath) in workers, inside the workflow bundle too:
// error messages and stack traces become an encoded payload, so the payload codec encrypts them
// (a failure message can quote user input). Workflow-safe: imports nothing but @temporalio/common.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
