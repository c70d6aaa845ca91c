/** The variables bin/finapi exports before it starts Node (see deployed.js). */
export function deployedEnv(): Record<string, string>
/** BENCH_NODE_ARGS, split into node's flags (see deployed.js). */
export function benchNodeArgs(): string[]
