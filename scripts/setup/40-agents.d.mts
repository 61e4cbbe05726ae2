// Types for 40-agents.mjs, imported by the tests that drive the pinned CLIs.
export declare const AGENT_CLIS: Record<string, string>;
export declare function agentsDir(env?: NodeJS.ProcessEnv): string;
export declare function agentBin(name: string, env?: NodeJS.ProcessEnv): string;
export declare function install(opts?: { log?: (s: string) => void }): { dir: string; ms: number };
