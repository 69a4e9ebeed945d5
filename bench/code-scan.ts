// In-process scan-time benchmark of the /verify/code engine.
//
//   npx tsx bench/code-scan.ts            (add --expose-gc via: node --expose-gc --import tsx bench/code-scan.ts)
//
// For each language: generated 100-, 2,000- and 20,000-line files, p50/p95 of scanCode (the
// full pipeline: parse, parse check, analysis, rules, credential search, proof), then memory
// (RSS, heap, external) before and after BENCH_SCANS (default 10,000) scans of the 100-line
// files, to show that trees and parsers are freed and reused.
import { loadavg } from 'node:os';
import { scanCode } from '../engines/code/index.js';

type Generator = { header: string; block: (i: number) => string };

const GENERATORS: Record<string, Generator> = {
  python: {
    header: 'import os\nimport json\nimport logging\nfrom typing import Any\n\nlogger = logging.getLogger(__name__)\n',
    block: (i) => `
def process_item_${i}(item: dict, config: Any) -> Any:
    """Process one item and return its score."""
    if item is None:
        return None
    value = item.get("value", 0)
    total = sum(x * 2 for x in config.values)
    path = os.path.join(config.root, f"item_{i}.json")
    with open(path) as fh:
        data = json.load(fh)
    logger.info("item %s scored %s", ${i}, value + total)
    return {"score": value + total, "data": data}
`,
  },
  javascript: {
    header: "'use strict';\nconst fs = require('fs');\nconst path = require('path');\n",
    block: (i) => `
async function loadItem${i}(root, id) {
  const file = path.join(root, \`item-\${id}.json\`);
  const text = await fs.promises.readFile(file, 'utf8');
  const item = JSON.parse(text);
  if (!item || item.disabled) {
    return null;
  }
  const total = item.values.reduce((a, b) => a + b, 0);
  console.log('loaded', id, total);
  return { id, total, tags: item.tags.map((t) => t.toLowerCase()) };
}
`,
  },
  typescript: {
    header:
      "import { readFile } from 'node:fs/promises';\nimport path from 'node:path';\n\ninterface Item { id: string; values: number[]; tags: string[]; disabled?: boolean }\n",
    block: (i) => `
export async function loadItem${i}(root: string, id: string): Promise<{ id: string; total: number } | null> {
  const file = path.join(root, \`item-\${id}.json\`);
  const item = JSON.parse(await readFile(file, 'utf8')) as Item;
  if (item.disabled) {
    return null;
  }
  const total: number = item.values.reduce((a, b) => a + b, 0);
  console.log('loaded', id, total);
  return { id, total };
}
`,
  },
  bash: {
    header: '#!/usr/bin/env bash\nset -euo pipefail\nROOT="${ROOT:-/srv/app}"\n',
    block: (i) => `
step_${i}() {
  local name="item-${i}"
  if [ -f "$ROOT/$name.conf" ]; then
    echo "configuring $name"
    cp "$ROOT/$name.conf" "/etc/app/$name.conf"
  else
    mkdir -p "$ROOT/$name"
  fi
  grep -c "ok" "$ROOT/$name.log" || true
}
`,
  },
  go: {
    header: 'package main\n\nimport (\n\t"encoding/json"\n\t"fmt"\n\t"os"\n\t"path/filepath"\n)\n',
    block: (i) => `
func loadItem${i}(root string, id string) (map[string]any, error) {
	file := filepath.Join(root, fmt.Sprintf("item-%s.json", id))
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var item map[string]any
	if err := json.Unmarshal(data, &item); err != nil {
		return nil, err
	}
	fmt.Println("loaded", id)
	return item, nil
}
`,
  },
  java: {
    header: 'import java.nio.file.*;\nimport java.util.*;\n\nclass Items {\n',
    block: (i) => `
    static Map<String, Object> loadItem${i}(Path root, String id) throws Exception {
        Path file = root.resolve("item-" + id + ".json");
        String text = Files.readString(file);
        Map<String, Object> item = new HashMap<>();
        if (text.isEmpty()) {
            return item;
        }
        item.put("id", id);
        item.put("length", text.length());
        System.out.println("loaded " + id);
        return item;
    }
`,
  },
  ruby: {
    header: "require 'json'\n\nmodule Items\n",
    block: (i) => `
  def self.load_item_${i}(root, id)
    file = File.join(root, "item-#{id}.json")
    return nil unless File.exist?(file)
    item = JSON.parse(File.read(file))
    total = item.fetch("values", []).sum
    puts "loaded #{id} #{total}"
    { id: id, total: total, tags: item["tags"].map(&:downcase) }
  end
`,
  },
  php: {
    header: '<?php\ndeclare(strict_types=1);\n\nnamespace App\\Items;\n',
    block: (i) => `
function load_item_${i}(string $root, string $id): ?array
{
    $file = $root . '/item-' . $id . '.json';
    if (!is_file($file)) {
        return null;
    }
    $item = json_decode(file_get_contents($file), true);
    $total = array_sum($item['values'] ?? []);
    error_log("loaded {$id} {$total}");
    return ['id' => $id, 'total' => $total];
}
`,
  },
};

const FOOTER: Record<string, string> = { java: '}\n', ruby: 'end\n' };

function generate(language: string, lines: number): string {
  const g = GENERATORS[language];
  const footer = FOOTER[language] ?? '';
  let out = g.header;
  const count = (s: string) => s.split('\n').length - 1;
  for (let i = 0; count(out) + count(footer) < lines; i++) out += g.block(i);
  return out + footer;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Wall-clock p50/p95 and CPU-time p50 (the machine may be shared: CPU time is less sensitive to other load). */
async function timeScans(
  code: string,
  language: string,
  runs: number,
): Promise<{ p50: number; p95: number; cpu50: number; findings: number }> {
  let findings = 0;
  for (let i = 0; i < 3; i++) await scanCode(code, language);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = cpuMs();
    const t0 = performance.now();
    const outcome = await scanCode(code, language);
    times.push(performance.now() - t0);
    cpu.push(cpuMs() - c0);
    if (outcome.kind !== 'proven') throw new Error(`${language}: ${outcome.agentMessage}`);
    findings = (outcome.developerFields.issues as unknown[]).length;
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), cpu50: percentile(cpu, 50), findings };
}

const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

function memory(): NodeJS.MemoryUsage {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage();
}

async function main(): Promise<void> {
  const sizes: [number, number][] = [
    [100, 200],
    [2000, 40],
    [20000, 6],
  ];
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('language     lines   bytes      p50 ms   p95 ms  cpu p50 ms  runs  findings');
  for (const language of Object.keys(GENERATORS)) {
    for (const [lines, runs] of sizes) {
      const code = generate(language, lines);
      const r = await timeScans(code, language, runs);
      console.log(
        `${language.padEnd(11)} ${String(code.split('\n').length - 1).padStart(6)} ${String(code.length).padStart(8)} ${r.p50.toFixed(2).padStart(9)} ${r.p95.toFixed(2).padStart(8)} ${r.cpu50.toFixed(2).padStart(11)} ${String(runs).padStart(5)} ${String(r.findings).padStart(9)}`,
      );
    }
  }

  const total = Number(process.env.BENCH_SCANS ?? 10_000);
  const files = Object.keys(GENERATORS).map((language) => ({ language, code: generate(language, 100) }));
  const before = memory();
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const f = files[i % files.length];
    await scanCode(f.code, f.language);
  }
  const elapsed = performance.now() - t0;
  const after = memory();
  console.log(
    `\n${total} scans of 100-line files (all languages, round-robin) in ${(elapsed / 1000).toFixed(1)} s (gc ${typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'forced' : 'not exposed'})`,
  );
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`            rss MB  heapUsed MB  heapTotal MB  external MB  arrayBuffers MB`);
  for (const [label, m] of [
    ['before', before],
    ['after', after],
  ] as const) {
    console.log(
      `${label.padEnd(10)} ${mb(m.rss).padStart(7)} ${mb(m.heapUsed).padStart(12)} ${mb(m.heapTotal).padStart(13)} ${mb(m.external).padStart(12)} ${mb(m.arrayBuffers).padStart(16)}`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
