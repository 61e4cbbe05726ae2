// What an agent brain can set up declares (its folder's harness.ts): filled in below.
export interface AgentHarness {
  /** Its CLI's name on PATH. */
  bin: string;
}
