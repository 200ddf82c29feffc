/**
 * CPU accounting of a scenario: the whole PostgreSQL server's CPU time (the postmaster, the
 * backends it reaped and every live child, so a backend that exits between two readings is
 * counted once), this process's, and the machine's busy share. The server must be local (its
 * postmaster is found as the parent of a backend of ours); otherwise the server figure is null.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 10_000; // USER_HZ = 100 on Linux

function stat(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    ppid: Number(f[1]),
    own: Number(f[11]) + Number(f[12]),
    children: Number(f[13]) + Number(f[14]),
  };
}

/** The postmaster's pid, from a backend of `sql`; null when the server is not on this machine. */
export async function postmasterPid(sql) {
  const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`;
  try {
    return stat(pid).ppid;
  } catch {
    return null;
  }
}

/** Server CPU so far, in µs (see above). */
export function serverCpuUs(postmaster) {
  if (postmaster === null) return null;
  const pm = stat(postmaster);
  let ticks = pm.own + pm.children;
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57 || Number(name) === postmaster) continue;
    try {
      const s = stat(name);
      if (s.ppid === postmaster) ticks += s.own;
    } catch {
      // exited meanwhile: now in the postmaster's children times
    }
  }
  return ticks * TICK_US;
}

/** Busy and total jiffies of the machine (all cores). */
export function machineTicks() {
  const n = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - n[3] - n[4], total };
}

/** Starts an account; `end(units)` gives server and own CPU µs per unit and the machine's busy %. */
export async function cpuAccount(sql) {
  const postmaster = await postmasterPid(sql);
  const server0 = serverCpuUs(postmaster);
  const own0 = process.cpuUsage();
  const machine0 = machineTicks();
  return {
    end(units) {
      const server1 = serverCpuUs(postmaster);
      const own = process.cpuUsage(own0);
      const machine1 = machineTicks();
      const per = (us) => (us === null ? null : Math.round((us / units) * 10) / 10);
      return {
        serverCpuUsPer: per(server1 === null ? null : server1 - server0),
        processCpuUsPer: per(own.user + own.system),
        machineBusyPercent: Math.round(
          (100 * (machine1.busy - machine0.busy)) / (machine1.total - machine0.total),
        ),
      };
    },
  };
}
