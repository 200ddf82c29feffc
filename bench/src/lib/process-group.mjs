/**
 * Processes started together and measured as one worker: if one fails to start, those already up
 * are stopped before the failure is thrown, so no process outlives its scenario.
 */
export async function startTogether(starting, roleOf) {
  const started = await Promise.allSettled(starting);
  const up = started.filter((s) => s.status === 'fulfilled').map((s) => s.value);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(up.map((r) => r.stop()));
    throw failed.reason;
  }
  return {
    up,
    group: {
      pid: up[0].pid,
      roles: up.map((r, i) => ({ pid: r.pid, role: roleOf(i) })),
      startedAt: Math.min(...up.map((r) => r.startedAt)),
      // Ready when the last one is.
      readyAt: Math.max(...up.map((r) => r.readyAt)),
      logFile: up.map((r) => r.logFile).join(', '),
      async stop() {
        const exits = await Promise.all(up.map((r) => r.stop()));
        return exits[0];
      },
    },
  };
}
