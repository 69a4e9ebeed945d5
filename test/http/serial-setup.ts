// Runs before each serial file (vitest.config.ts, project http-serial): the parallel phase is
// over, so the shared extra processes it used (test/http/extra-process.ts) are stopped. A serial
// file stops, kills or times the stack's components and should not have idle processes of other
// files beside it. Idempotent: after the first serial file there is nothing left to stop.
import { inject } from 'vitest';

const res = await fetch(`${inject('controlUrl')}/shared/stop-all`, { method: 'POST' });
if (res.status !== 200) throw new Error(`stopping the shared extra processes failed: ${await res.text()}`);
