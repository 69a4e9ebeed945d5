// Tool identity (docs/agents.md): one normalisation of tool names for every place that compares
// them. Imports nothing (the agent workflow bundle reaches it through engines/agents).

/**
 * A tool's identity, the one normalisation used everywhere (policy lists, the tool endpoint,
 * definition pins and their approval): NFKC, trimmed, lower-cased, and every run of
 * separators (`-`, `.`, `:`, `_`, whitespace) as one `_`. `WX.Weather`, `wx-weather` and
 * `wx__weather` are one tool, so a changed definition cannot be pinned again under another
 * spelling of its name.
 */
export function normalizeToolName(name: string): string {
  return name
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/[-.:_\s]+/g, '_');
}
