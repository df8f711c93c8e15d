import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The MCP fixture server over stdio, to run as `node <this file>` (an `mcpServers` entry's
 * command). `MCP_PID_FILE`: each start appends its pid there, so a test knows whom to kill;
 * `MCP_FIXTURE_NAME`: the server's name.
 */
export const MCP_FIXTURE_STDIO_SCRIPT = fileURLToPath(new URL("./fixture-stdio.mjs", import.meta.url));

/** `@modelcontextprotocol/server-everything` (the MCP project's reference server): `node <it> stdio | sse | streamableHttp`. */
export const SERVER_EVERYTHING_SCRIPT = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
