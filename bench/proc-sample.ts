// CPU and resident memory of a stack process and its children, read from /proc. Every stack
// process is started in a process group of its own (infra/stack.ts), so the group id names it.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

export interface ProcSample {
  cpuMs: number;
  rssMb: number;
}

/** utime + stime (ms) and VmRSS (MB) summed over the processes of group `pgid`. */
export function groupSample(pgid: number | undefined): ProcSample {
  if (!pgid) return { cpuMs: 0, rssMb: 0 };
  let ticks = 0;
  let rssKb = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Fields after the parenthesised command name: state ppid pgrp session ... utime(14) stime(15).
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) !== pgid) continue;
      ticks += Number(f[11]) + Number(f[12]);
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${name}/status`, 'utf8'));
      if (m) rssKb += Number(m[1]);
    } catch {
      /* gone meanwhile */
    }
  }
  return { cpuMs: (ticks * 1000) / CLK_TCK, rssMb: Math.round(rssKb / 1024) };
}

/** utime + stime (ms) of the processes of group `pgid`. */
export const groupCpuMs = (pgid: number | undefined): number => groupSample(pgid).cpuMs;
