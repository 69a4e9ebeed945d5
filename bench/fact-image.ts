// Latency of /verify/image (a 1 MP and a 20 MP image) and /verify/fact (a 10 KB context).
// In-process: the engines as the worker's activities run them (sharp decode + measurement +
// claim decision; fact analysis). With --http: the same requests through a private stack
// (API → Temporal → worker → store), multipart upload included.
//   npx tsx bench/fact-image.ts [--rounds N] [--http]
// Prints p50 / p95 / max in milliseconds per row.
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { measureImage } from '../activities/verify-image.js';
import { analyzeFact } from '../engines/fact/index.js';
import { decideImageClaim, parseImageClaim } from '../engines/image/index.js';
import { percentile, startBenchStack } from './bench-stack.js';

const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1] ?? 0) || 20;
const HTTP = args.includes('--http');

/** A photo-like image (gradient + noise) so the codecs do real work. */
async function photo(width: number, height: number): Promise<Buffer> {
  const noise = await sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 20 } },
  })
    .jpeg({ quality: 70 })
    .toBuffer();
  return noise;
}

/** ~10 KB of encyclopaedic text with the deciding sentence in the middle. */
function context10k(): string {
  const filler = [
    'The river runs through three provinces before it reaches the sea.',
    'Its delta was drained in the nineteenth century for farming.',
    'Local historians disagree about the origin of the name.',
    'The old harbour now serves mostly pleasure boats and ferries.',
    'In winter the upper valley is often cut off by snow.',
  ];
  const out: string[] = [];
  let n = 0;
  while (out.join(' ').length < 5000) out.push(filler[n++ % filler.length]!);
  out.push('The main bridge over the river was completed in 1932 and is 412 metres long.');
  while (out.join(' ').length < 10_240) out.push(filler[n++ % filler.length]!);
  return out.join(' ');
}

function row(label: string, samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  return `${label.padEnd(44)} p50 ${percentile(s, 50).toFixed(1).padStart(8)}  p95 ${percentile(s, 95).toFixed(1).padStart(8)}  max ${s[s.length - 1]!.toFixed(1).padStart(8)}  (n=${s.length})`;
}

async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

async function main() {
  const img1 = await photo(1000, 1000);
  const img20 = await photo(5000, 4000);
  const ctx = context10k();
  const claims = [
    'The main bridge is 412 metres long.',
    'The main bridge was completed in 1933.',
    'The bridge is made of steel.',
  ];
  console.log(
    `images: 1 MP JPEG ${img1.length} bytes, 20 MP JPEG ${img20.length} bytes; fact context ${ctx.length} characters; ${ROUNDS} rounds`,
  );
  console.log(`sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}, libvips threads ${sharp.concurrency()}`);
  console.log('\nin-process (what the activity does after loading the upload):');
  const claim = parseImageClaim('The image is 1000x1000 and mostly gray');
  for (const [label, buf, rounds] of [
    ['image 1 MP (decode + measure + decide)', img1, ROUNDS],
    ['image 20 MP (decode + measure + decide)', img20, Math.max(5, Math.floor(ROUNDS / 2))],
  ] as const) {
    const s = await time(rounds, async () => {
      const m = await measureImage(buf, 'jpeg');
      if ('error' in m) throw new Error(JSON.stringify(m.error));
      decideImageClaim(claim, m.measurements!, null);
    });
    console.log(row(label, s));
  }
  let k = 0;
  const f = await time(ROUNDS * 5, async () => analyzeFact(claims[k++ % claims.length]!, ctx));
  console.log(row('fact, 10 KB context (deterministic analysis)', f));

  if (!HTTP) return;
  console.log('\nover HTTP (API → Temporal → worker → store), one client:');
  const b = await startBenchStack('bench-fact-image', 700);
  try {
    const postImage = async (buf: Buffer, text: string) => {
      const fd = new FormData();
      fd.append('claim', text);
      fd.append('image', new Blob([new Uint8Array(buf)]), 'photo.jpg');
      const res = await fetch(`${b.base}/verify/image`, { method: 'POST', body: fd, headers: { 'x-api-key': b.key } });
      if (res.status !== 200) throw new Error(`image ${res.status} ${await res.text()}`);
      await res.json();
    };
    console.log(row('POST /verify/image, 1 MP', await time(ROUNDS, () => postImage(img1, 'The image is 1000x1000'))));
    console.log(
      row(
        'POST /verify/image, 20 MP',
        await time(Math.max(5, Math.floor(ROUNDS / 2)), () => postImage(img20, 'The image is 5000x4000')),
      ),
    );
    let j = 0;
    const postFact = async () => {
      const res = await fetch(`${b.base}/verify/fact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': b.key },
        body: JSON.stringify({ claim: claims[j++ % claims.length], context: ctx }),
      });
      if (res.status !== 200) throw new Error(`fact ${res.status} ${await res.text()}`);
      await res.json();
    };
    console.log(row('POST /verify/fact, 10 KB context', await time(ROUNDS, postFact)));
  } finally {
    await b.stack.down();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
