import { startAgent } from './agent.ts';
import { loadAgentConfig, type AgentConfig } from './config.ts';
import { createLogger } from './logger.ts';

/** Entry point: config → agent → run until SIGTERM/SIGINT → drain → exit. */
let config: AgentConfig;
try {
  config = loadAgentConfig();
} catch (err) {
  // A config error is for a human reading a terminal or a unit log: no stack trace.
  console.error((err as Error).message);
  process.exit(2);
}
const logger = createLogger(config.logLevel, config.agentId);
const agent = await startAgent(config, { logger }).catch((err: unknown) => {
  logger.fatal({ err: (err as Error).message }, 'render-agent could not start');
  process.exit(1);
});

let isStopping = false;
const shutdown = (signal: string) => {
  if (isStopping) return;
  isStopping = true;
  logger.info({ signal }, 'shutting down');
  // A drain that hangs (NATS unreachable) must not keep a supervisor waiting forever.
  setTimeout(() => process.exit(1), 30_000).unref();
  agent.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err: (err as Error).message }, 'unclean shutdown');
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

agent.done.catch(() => process.exit(1));
