import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** The trace context one `shout` call arrived with: in its HTTP headers and in `_meta`. */
export interface SeenTraceContext {
  headerTraceparent: string | undefined;
  metaTraceparent: string | undefined;
}

/** What a fixture server records for the test that started it. */
export interface FixtureSeen {
  /** Request ids of the `slow` calls cancelled by the client. */
  cancelled?: string[];
  /** One entry per `shout` call. */
  traceContexts?: SeenTraceContext[];
}

export declare const FIXTURE_TOOLS: readonly string[];

export declare function createFixtureServer(options?: { name?: string; seen?: FixtureSeen }): McpServer;
