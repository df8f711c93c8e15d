// The fixture server over stdio (a child process per session). MCP_PID_FILE: each start appends
// its pid there, so a test knows which process to kill.
import { appendFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createFixtureServer } from "./fixture-server.mjs";

if (process.env.MCP_PID_FILE) appendFileSync(process.env.MCP_PID_FILE, `${process.pid}\n`);
await createFixtureServer({ name: process.env.MCP_FIXTURE_NAME ?? "fixture-stdio" }).connect(new StdioServerTransport());
