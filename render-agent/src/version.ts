import pkg from '../package.json' with { type: 'json' };

/** Announced to the coordinator so operators can see which build each agent runs. */
export const AGENT_VERSION: string = pkg.version;
