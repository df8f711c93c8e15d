import { runServe } from "@conduit-ai/cli";

/**
 * The Conduit demo server: `conduit serve` with the demo's usage line. Every route group on
 * embedded defaults (local provider, memory stores; no API key, no Redis); provider keys and
 * REDIS_URL come from the environment, `auth` and `mcpServers` from the config file.
 */
await runServe(
  process.argv.slice(2),
  process.env,
  `Usage: pnpm demo -- [--port N] [--host H] [--framework hono|express|fastify|koa] [--config file.json]
Environment: PORT, HOST, CONDUIT_FRAMEWORK.`,
);
