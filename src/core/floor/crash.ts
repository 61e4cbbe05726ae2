// Crash points for the crash tests: with BRAIN_CRASH_AT=N the process kills itself (SIGKILL, no
// cleanup) at the Nth point it passes. Costs one env lookup per point otherwise.
let passed = 0;
const at = Number(process.env.BRAIN_CRASH_AT ?? 0);

export function crashPoint(_where: string): void {
  if (!at) return;
  passed++;
  if (passed === at) process.kill(process.pid, 'SIGKILL');
}

export function crashPointsPassed(): number {
  return passed;
}
