// A local SMTP sink for the dev and test stacks: accepts every message on loopback and stores it
// as an .eml file under the data folder, printing where, so a developer sees notifications
// (e.g. leaked-key revocations) without a mail provider. Production points SVC_SMTP_URL at a
// real server instead. Run: `tsx infra/smtp-sink.ts --port 8957 --dir .data/dev/mail`.
import { createWriteStream, mkdirSync, renameSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';

export const SMTP_SINK_READY = 'SVC_SMTP_SINK_READY';
/** Largest message kept (larger ones are refused with 552). */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface SmtpSinkOptions {
  host?: string;
  port: number;
  dir: string;
  /** Called with the path of each stored message. */
  onStored?: (file: string) => void;
}

export class SmtpSink {
  private server: SMTPServer | null = null;

  constructor(readonly opts: SmtpSinkOptions) {
    mkdirSync(opts.dir, { recursive: true });
  }

  get url(): string {
    return `smtp://${this.opts.host ?? '127.0.0.1'}:${this.opts.port}`;
  }

  start(): Promise<void> {
    const { dir, onStored } = this.opts;
    const server = new SMTPServer({
      authOptional: true,
      // Loopback only, plain text: the sink never holds credentials worth protecting.
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth: (_auth, _session, cb) => cb(null, { user: 'sink' }),
      size: MAX_MESSAGE_BYTES,
      logger: false,
      onData(stream, session, callback) {
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        const base = `${stamp}-${randomBytes(4).toString('hex')}`;
        const tmp = path.join(dir, `.${base}.tmp`);
        const file = path.join(dir, `${base}.eml`);
        const out = createWriteStream(tmp);
        stream.pipe(out);
        const fail = (err: Error) => callback(err);
        stream.once('error', fail);
        out.once('error', fail);
        out.once('finish', () => {
          if ((stream as { sizeExceeded?: boolean }).sizeExceeded) {
            callback(Object.assign(new Error('message too large'), { responseCode: 552 }));
            return;
          }
          // Complete files only: a reader never sees a half-written message.
          renameSync(tmp, file);
          onStored?.(file);
          callback(null, `stored as ${path.basename(file)}`);
        });
        void session;
      },
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  }

  stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

// CLI: the stack runs the sink as its own process (infra/stack.ts), so tests can stop it.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const port = Number(arg('port') ?? 8957);
  const dir = path.resolve(arg('dir') ?? path.join('.data', 'dev', 'mail'));
  const sink = new SmtpSink({
    port,
    dir,
    onStored: (file) =>
      process.stdout.write(
        `${JSON.stringify({ t: new Date().toISOString(), component: 'smtp-sink', msg: 'mail stored', file })}\n`,
      ),
  });
  sink
    .start()
    .then(() => {
      process.stdout.write(
        `${JSON.stringify({ t: new Date().toISOString(), component: 'smtp-sink', msg: 'smtp sink listening', url: sink.url, dir, ready: SMTP_SINK_READY })}\n`,
      );
    })
    .catch((err: Error) => {
      process.stderr.write(`smtp sink failed to start: ${err.message}\n`);
      process.exit(1);
    });
  const stop = () => void sink.stop().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
