import { createAuthFromConfig, createStaticCredentialValidator } from "@conduit-ai/auth";
import { type McpServerConfig, createRuntime } from "@conduit-ai/runtime";
import { type MiddlewareDefinition, createServer, registerAllRoutes } from "@conduit-ai/server-core";
import { type WebSocketAuthConfig, attachWebSocket } from "@conduit-ai/websocket";
import { UsageError, parseDemoOptions } from "./cli-options.js";

/**
 * The Conduit demo server: every route group on embedded defaults (local provider, memory
 * stores; no API key, no Redis). Provider keys and REDIS_URL come from the environment,
 * `auth` and `mcpServers` from the config file. Prints one ready line; SIGTERM/SIGINT drain.
 */
async function main(): Promise<void> {
  const options = parseDemoOptions(process.argv.slice(2), process.env);
  const authMiddleware = readAuth(options.file.auth);
  const runtime = createRuntime({ mcpServers: options.file.mcpServers as Record<string, McpServerConfig> | undefined });
  const server = await createServer(runtime, { framework: options.framework, config: options.server });
  for (const middleware of authMiddleware) server.registerMiddleware(middleware);
  registerAllRoutes(server);
  // The WebSocket surface asks for the same credentials as HTTP (fail closed).
  const credentials = options.file.auth === undefined ? undefined : createStaticCredentialValidator(options.file.auth);
  const webSocketAuth: WebSocketAuthConfig = credentials
    ? { strategy: credentials.strategy, validate: (credential) => {
        const user = credentials.validate(credential);
        return user ? { ...user } : null;
      } }
    : { strategy: "none" };
  attachWebSocket(server, { runtime, auth: webSocketAuth });
  await server.start();
  const host = options.server.host ?? "0.0.0.0";
  console.log(`Conduit listening on http://${host}:${server.address()?.port} (framework: ${options.framework})`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal} received, draining…`);
    try {
      await server.stop();
      await runtime.close();
      process.exit(0);
    } catch (error) {
      console.error(`Shutdown failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

function readAuth(auth: unknown): MiddlewareDefinition[] {
  if (auth === undefined) return [];
  try {
    return createAuthFromConfig(auth);
  } catch (error) {
    throw new UsageError(`Config file: invalid auth: ${(error as Error).message}`);
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  const code = (error as { code?: string }).code;
  console.error(`Conduit demo failed to start${code ? ` (${code})` : ""}: ${(error as Error).message}`);
  process.exit(1);
});
