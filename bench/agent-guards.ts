// Precision and recall of the agent guards on labelled corpora.
//
//   npx tsx bench/agent-guards.ts
//
// 1. Tool-poisoning detector on test/fixtures/tool-definitions/ (clean definitions written for
//    this project, poisoned ones modelled on published attacks; see its MANIFEST.md).
// 2. Exfiltration detector on a generated corpus: secrets and personal data (plain, encoded,
//    split, look-alike spellings) against look-alikes that must pass (UUIDs, commit hashes,
//    version strings, URLs on allowed domains, Luhn-invalid numbers...).
// Prints the confusion matrix, precision, recall, every miss and false positive, and scan time.
import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import { scanToolDefinition } from '../engines/agent-guards/tool-poisoning.js';
import { scanText } from '../engines/agent-guards/exfiltration.js';
import { generateApiKey, generateAgentToken } from '../core/api-keys.js';

interface Labelled {
  label: boolean;
  name: string;
  flagged: boolean;
  kinds: string[];
}

function report(title: string, items: Labelled[], ms: number[]): void {
  const tp = items.filter((i) => i.label && i.flagged).length;
  const fp = items.filter((i) => !i.label && i.flagged).length;
  const fn = items.filter((i) => i.label && !i.flagged).length;
  const tn = items.filter((i) => !i.label && !i.flagged).length;
  const precision = tp + fp ? tp / (tp + fp) : 1;
  const recall = tp + fn ? tp / (tp + fn) : 1;
  const sorted = [...ms].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]?.toFixed(2);
  console.log(`\n== ${title}`);
  console.log(`items ${items.length} (positive ${tp + fn}, negative ${fp + tn})`);
  console.log(`TP ${tp}  FP ${fp}  FN ${fn}  TN ${tn}`);
  console.log(
    `precision ${precision.toFixed(3)}  recall ${recall.toFixed(3)}  F1 ${((2 * precision * recall) / (precision + recall || 1)).toFixed(3)}`,
  );
  console.log(`scan time per item: p50 ${q(0.5)} ms, p95 ${q(0.95)} ms`);
  for (const i of items.filter((x) => x.label && !x.flagged)) console.log(`  missed:         ${i.name}`);
  for (const i of items.filter((x) => !x.label && x.flagged))
    console.log(`  false positive: ${i.name} (${i.kinds.join(', ')})`);
}

function timed<T>(fn: () => T, ms: number[]): T {
  const t = performance.now();
  const r = fn();
  ms.push(performance.now() - t);
  return r;
}

// 1. Tool definitions
const root = new URL('../test/fixtures/tool-definitions/', import.meta.url);
const clean = JSON.parse(readFileSync(new URL('clean/written-for-svc.json', root), 'utf8')) as {
  tools: Array<{ source_path: string; definition: Record<string, unknown> }>;
};
const poisoned = JSON.parse(readFileSync(new URL('poisoned/poisoned.json', root), 'utf8')) as {
  tools: Array<{ attack: string; definition: Record<string, unknown> }>;
};
const toolMs: number[] = [];
const toolItems: Labelled[] = [
  ...clean.tools.map((t) => {
    const f = timed(() => scanToolDefinition(t.definition), toolMs);
    return {
      label: false,
      name: `${t.source_path}:${String(t.definition.name)}`,
      flagged: f.length > 0,
      kinds: f.map((x) => `${x.kind}@${x.location}`),
    };
  }),
  ...poisoned.tools.map((t) => {
    const f = timed(() => scanToolDefinition(t.definition), toolMs);
    return {
      label: true,
      name: `${t.attack}:${String(t.definition.name)}`,
      flagged: f.length > 0,
      kinds: f.map((x) => x.kind),
    };
  }),
];
report('tool-poisoning detector (test/fixtures/tool-definitions)', toolItems, toolMs);

// 2. Exfiltration
const allowed = ['example.com'];
const b64 = (s: string) => Buffer.from(s).toString('base64');
const hex = (s: string) => Buffer.from(s).toString('hex');
const lookalike = (s: string) => s.replace(/a/g, 'а').replace(/e/g, 'е').replace(/o/g, 'о').replace(/c/g, 'с');
const split = (s: string) => `"${s.slice(0, Math.floor(s.length / 2))}" + "${s.slice(Math.floor(s.length / 2))}"`;
const secrets: Array<[string, () => string]> = [
  ['svc_live key', () => generateApiKey()],
  ['svc_agent token', () => generateAgentToken()],
  ['AWS access key id', () => `AKIA${randomBytes(10).toString('hex').toUpperCase().slice(0, 16)}`],
  [
    'GitHub token',
    () =>
      `ghp_${randomBytes(27)
        .toString('base64')
        .replace(/[^A-Za-z0-9]/g, 'x')
        .slice(0, 36)}`,
  ],
  ['GitLab token', () => `glpat-${randomBytes(15).toString('base64url').slice(0, 20)}`],
  ['Slack token', () => `xoxb-${randomBytes(8).toString('hex')}-${randomBytes(8).toString('hex')}`],
  [
    'Stripe key',
    () =>
      `sk_live_${randomBytes(18)
        .toString('base64')
        .replace(/[^A-Za-z0-9]/g, 'q')
        .slice(0, 24)}`,
  ],
  [
    'npm token',
    () =>
      `npm_${randomBytes(27)
        .toString('base64')
        .replace(/[^A-Za-z0-9]/g, 'z')
        .slice(0, 36)}`,
  ],
  [
    'JWT',
    () =>
      `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: randomUUID() })).toString('base64url')}.${randomBytes(32).toString('base64url')}`,
  ],
  [
    'private key',
    () => '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
  ],
  ['e-mail', () => `${randomBytes(4).toString('hex')}.person@mail-${randomBytes(2).toString('hex')}.org`],
  ['card', () => '5555 5555 5555 4444'],
  ['IBAN', () => 'FR14 2004 1010 0505 0001 3M02 606'],
  ['SSN', () => '219-09-9999'],
  ['outside URL', () => `https://drop-${randomBytes(3).toString('hex')}.io/upload`],
];
const wrappers: Array<[string, (s: string) => string]> = [
  ['plain', (s) => `here it is: ${s} thanks`],
  ['base64', (s) => `blob ${b64(`v=${s}`)}`],
  ['hex', (s) => `hex ${hex(s)}`],
  [
    'url',
    (s) => `q=${encodeURIComponent(s).replace(/[_.@-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
  ],
  ['split', (s) => `v = ${split(s)};`],
  ['look-alike', (s) => lookalike(s)],
];
const negatives: Array<[string, () => string]> = [
  ['UUID', () => `id ${randomUUID()}`],
  ['SHA-256 commit message', () => `commit ${createHash('sha256').update(randomBytes(8)).digest('hex')}: fix tests`],
  ['SHA-1 git hash', () => `merge ${createHash('sha1').update(randomBytes(8)).digest('hex')} into main`],
  ['allowed URL', () => `docs at https://docs.example.com/page/${randomBytes(2).toString('hex')}?x=1`],
  [
    'version string',
    () =>
      `bump to ${Math.floor(Math.random() * 9)}.${Math.floor(Math.random() * 20)}.${Math.floor(Math.random() * 50)} and 1.2.3.4`,
  ],
  ['file names', () => 'edit setup.py, main.rs and index.ts'],
  ['Luhn-invalid number', () => '4111 1111 1111 1112'],
  ['timestamp', () => `at ${Date.now()} ms (${new Date().toISOString()})`],
  ['math', () => `(x+${Math.floor(Math.random() * 9)})^2 = x^2 + 2*x + 1`],
  ['prose', () => 'Please summarise the quarterly report and list three risks.'],
  ['bad-checksum svc key', () => `svc_live_${'B'.repeat(36)}`],
  ['base64 image fragment', () => `data:image/png;base64,${randomBytes(48).toString('base64')}`],
  ['placeholder password', () => 'password: <your password here>'],
  ['phone-like', () => 'call +1 (555) 010-2030 ext 44'],
  ['SQL', () => 'SELECT id, name FROM users WHERE created_at > 1700000000'],
];
const exMs: number[] = [];
const exItems: Labelled[] = [];
for (let round = 0; round < 5; round++) {
  for (const [sn, gen] of secrets) {
    for (const [wn, wrap] of wrappers) {
      if (wn === 'look-alike' && ['card', 'IBAN', 'SSN', 'private key'].includes(sn)) continue;
      const text = wrap(gen());
      const f = timed(() => scanText(text, 'q', { allowedDomains: allowed }), exMs);
      exItems.push({ label: true, name: `${sn} / ${wn}`, flagged: f.length > 0, kinds: f.map((x) => x.kind) });
    }
  }
  for (const [nn, gen] of negatives) {
    const text = gen();
    const f = timed(() => scanText(text, 'q', { allowedDomains: allowed }), exMs);
    exItems.push({
      label: false,
      name: `${nn}: ${text.slice(0, 60)}`,
      flagged: f.length > 0,
      kinds: f.map((x) => x.kind),
    });
  }
}
report('exfiltration detector (generated: secrets x encodings vs look-alikes, 5 rounds)', exItems, exMs);
