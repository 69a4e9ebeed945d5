// Drives Debian's chromium (headless, fresh profile, no network beyond loopback) over the DevTools
// protocol as an operator would: optionally signs in at the codec server's own page (types the
// token, presses "Sign in"), then opens a workflow in the Temporal UI and waits until its input is
// shown. Prints one JSON line: { signedIn, status, text } where text is the page's visible text.
// Run with: node --experimental-websocket ui-decode.mjs <codecUrl> <uiUrl> <workflowId> <token|-> <needle> [waitMs]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [codecUrl, uiUrl, workflowId, token, needle, waitArg] = process.argv.slice(2);
const waitMs = Number(waitArg ?? 60_000);
const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
const chrome = spawn(
  'chromium',
  [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    `--user-data-dir=${profile}`,
    '--remote-debugging-port=0',
    'about:blank',
  ],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);

const finish = (out, code = 0) => {
  process.stdout.write(JSON.stringify(out) + '\n');
  const done = () => {
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      /* a leftover temporary profile is harmless */
    }
    process.exit(code);
  };
  if (chrome.exitCode !== null) return done();
  chrome.once('exit', done);
  chrome.kill('SIGKILL');
};
setTimeout(() => finish({ error: 'timed out' }, 2), 150_000).unref();

const wsUrl = await new Promise((resolve, reject) => {
  let buf = '';
  chrome.stderr.on('data', (c) => {
    buf += c;
    const m = /DevTools listening on (ws:\/\/\S+)/.exec(buf);
    if (m) resolve(m[1]);
  });
  chrome.on('exit', (code) => reject(new Error(`chromium exited ${code}: ${buf.slice(-500)}`)));
}).catch((e) => finish({ error: String(e.message) }, 2));

const ws = new WebSocket(wsUrl);
await new Promise((r) => ws.addEventListener('open', r, { once: true }));
let seq = 0;
const pending = new Map();
ws.addEventListener('message', (ev) => {
  const msg = JSON.parse(String(ev.data));
  if (msg.id && pending.has(msg.id)) {
    pending.get(msg.id)(msg);
    pending.delete(msg.id);
  }
});
const send = (method, params = {}, sessionId) =>
  new Promise((resolve, reject) => {
    const id = ++seq;
    pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });

const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
const page = (method, params) => send(method, params, sessionId);
await page('Page.enable');
await page('Runtime.enable');
const evaluate = async (expression) =>
  (await page('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })).result.value;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (expression, ms) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await evaluate(expression).catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) return undefined;
    await sleep(500);
  }
};

let signedIn = null;
if (token !== '-') {
  await page('Page.navigate', { url: `${codecUrl}/` });
  // The page's script (session.js, at the end of the body) must have run before the click, or the
  // form would submit natively: wait for the document to be complete.
  await waitFor(`document.readyState === 'complete' && !!document.getElementById('t')`, 30_000);
  await evaluate(
    `document.getElementById('t').value = ${JSON.stringify(token)}; document.querySelector('#f button').click(); true`,
  );
  signedIn =
    (await waitFor(`document.getElementById('s') && document.getElementById('s').textContent`, 30_000)) ?? null;
}

await page('Page.navigate', { url: `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}` });
// The SPA renders the history and asks the codec server to decode; wait for the needle (or give up).
// Without a session, wait for the page to show the workflow first, then give the decode the same chance.
if (token === '-')
  await waitFor(`document.body && document.body.innerText.includes(${JSON.stringify(workflowId)})`, waitMs);
const found = await waitFor(`document.body && document.body.innerText.includes(${JSON.stringify(needle)})`, waitMs);
const text = (await evaluate('document.body ? document.body.innerText : ""')) ?? '';
finish({ signedIn, status: found ? 'found' : 'absent', text: text.slice(0, 20_000) });
