// Crash points for the crash tests: with BRAIN_CRASH_AT=N the process kills itself (SIGKILL, no
// cleanup) at the Nth point it passes. Costs one env lookup per point otherwise.
import { setting } from '../settings';

let passed = 0;
const at = setting(process.env, 'BRAIN_CRASH_AT');

/** Whether a crash point is set (the tests' torn-append path runs only then). */
export function crashArmed(): boolean {
  return at > 0;
}

export function crashPoint(_where: string): void {
  if (!at) return;
  passed++;
  if (passed === at) process.kill(process.pid, 'SIGKILL');
}

export function crashPointsPassed(): number {
  return passed;
}
