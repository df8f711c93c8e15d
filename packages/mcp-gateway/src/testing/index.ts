/** Test helpers (workspace only, not published): upstream MCP servers made with the official SDK. */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export { type HttpFixture, type HttpFixtureOptions, startHttpFixture } from "./http-fixture.js";

/** The fixture server over stdio: `node <this file>` (env `MCP_PID_FILE` collects the pids of its starts). */
export const FIXTURE_STDIO_SCRIPT = fileURLToPath(new URL("./fixture-stdio.mjs", import.meta.url));

/** `@modelcontextprotocol/server-everything`'s entry: `node <it> stdio | sse | streamableHttp`. */
export const SERVER_EVERYTHING_SCRIPT = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
