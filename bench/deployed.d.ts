/** The variables bin/finapi exports before it starts Node (see deployed.js). */
export function deployedEnv(): Record<string, string>
