// What the worker's parts share once `init` has run: the floor they work on and the way back to the
// extension host.
import type { FloorView } from '../../core/recall/floorview';
import type { InitParams } from '../protocol';
import type { Emit, Log } from './rpc';

export interface WorkerCtx {
  readonly home: string;
  readonly params: InitParams;
  /** The Sessions view's sessions (it holds this machine's turn index open). */
  readonly view: FloorView;
  /** [0] = 1 when the host asks the running catch-up to stop (shared memory: see InitParams). */
  readonly cancel: Int32Array | undefined;
  emit: Emit;
  log: Log;
  /** Reads the floor again shortly (0: at once) and tells the host when sessions changed. */
  refreshSoon(delay?: number): void;
  /** The window is closing: start nothing new. */
  closing(): boolean;
}
