/**
 * CPU time by role, from /proc: every `intervalMs` it reads utime+stime of every process and the
 * machine's /proc/stat, and adds each process's delta to its role: the QueueBox process, the
 * sink, a peer worker process, this bench process, PostgreSQL backends of the scenario's
 * database (pids from the activity sampler), other PostgreSQL processes (background workers and
 * other databases, e.g. colleagues' tests) and everything else. `window(t0, t1)` returns the
 * CPU % (100 % = one core) of each role between two wall-clock times.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { now } from './util.mjs';

const TICKS_PER_SECOND = 100; // CLK_TCK on Linux

function readProcStat() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3] + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { idle, total };
}

/** Percent of all cores busy over the next `ms` milliseconds (whole machine, from /proc/stat). */
export async function machineBusyPercent(ms) {
  const a = readProcStat();
  await new Promise((r) => setTimeout(r, ms));
  const b = readProcStat();
  const total = b.total - a.total;
  return total > 0 ? Math.round(((total - (b.idle - a.idle)) / total) * 1000) / 10 : 0;
}

export function startCpuSampler({ intervalMs = 500, dbBackendPids = () => new Set() } = {}) {
  const roles = new Map([[process.pid, 'bench']]);
  let last = new Map();
  let lastMachine = readProcStat();
  const series = [];
  const sample = () => {
    const t = now();
    const current = new Map();
    const deltas = {};
    const userDeltas = {};
    const backends = dbBackendPids();
    let entries;
    try {
      entries = readdirSync('/proc');
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
      let text;
      try {
        text = readFileSync(`/proc/${entry}/stat`, 'latin1');
      } catch {
        continue;
      }
      const close = text.lastIndexOf(')');
      const comm = text.slice(text.indexOf('(') + 1, close);
      const fields = text.slice(close + 2).split(' ');
      const user = Number(fields[11]);
      const ticks = user + Number(fields[12]);
      const pid = Number(entry);
      current.set(pid, { ticks, user });
      const before = last.get(pid);
      if (before === undefined) continue;
      const delta = ticks - before.ticks;
      if (delta <= 0) continue;
      let role = roles.get(pid);
      if (role === undefined) {
        if (comm === 'postgres')
          role = backends.has(pid) ? 'postgres (bench db)' : 'postgres (other)';
        else role = 'other';
      }
      deltas[role] = (deltas[role] ?? 0) + delta;
      // The kernel's share (system time: syscalls, the loopback TCP path) per role.
      userDeltas[role] = (userDeltas[role] ?? 0) + (user - before.user);
    }
    const machine = readProcStat();
    const total = machine.total - lastMachine.total;
    const busy = total - (machine.idle - lastMachine.idle);
    lastMachine = machine;
    last = current;
    series.push({ t, deltas, userDeltas, busy, total });
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    setRole(pid, role) {
      roles.set(pid, role);
    },
    /** CPU % per role between t0 and t1 (snapshots whose interval ends inside the window). */
    window(t0, t1) {
      sample();
      let picked = series.filter((s) => s.t > t0 && s.t <= t1 + intervalMs / 2);
      if (picked.length === 0) return null;
      const seconds = (picked[picked.length - 1].t - Math.min(t0, picked[0].t - intervalMs)) / 1000;
      const sums = {};
      const userSums = {};
      let busy = 0;
      let total = 0;
      for (const s of picked) {
        for (const [role, d] of Object.entries(s.deltas)) sums[role] = (sums[role] ?? 0) + d;
        for (const [role, d] of Object.entries(s.userDeltas))
          userSums[role] = (userSums[role] ?? 0) + d;
        busy += s.busy;
        total += s.total;
      }
      const percent = {};
      for (const [role, d] of Object.entries(sums).sort((a, b) => b[1] - a[1])) {
        percent[role] = Math.round((d / TICKS_PER_SECOND / seconds) * 1000) / 10;
      }
      const systemShare = {};
      for (const [role, d] of Object.entries(sums))
        if (d > 0) systemShare[role] = Math.round(((d - (userSums[role] ?? 0)) / d) * 100) / 100;
      return {
        seconds: Math.round(seconds * 10) / 10,
        percentOfOneCore: percent,
        systemShareOfRole: systemShare,
        machineBusyPercent: total > 0 ? Math.round((busy / total) * 1000) / 10 : null,
      };
    },
    stop() {
      clearInterval(timer);
    },
  };
}
