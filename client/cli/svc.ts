// Process entry of `svc` (bin/svc.mjs loads it through tsx): real stdio, real exit code.
import { readFileSync } from 'node:fs';
import { main } from './main.js';
import type { Io } from './output.js';

const io: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  readStdin: () => readFileSync(0, 'utf8'),
  readStdinBytes: () => readFileSync(0),
  stderrIsTTY: process.stderr.isTTY === true,
  stderr: process.stderr,
};

const code = await main(process.argv.slice(2), process.env, io);
// Let stdout drain before exiting (a pipe may be slower than us).
process.stdout.write('', () => process.exit(code));
