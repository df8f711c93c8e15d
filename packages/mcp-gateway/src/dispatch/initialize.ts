import { VERSION } from "../version.js";

/** The revisions of the Streamable HTTP protocol the endpoint speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

/** The client's revision when the gateway speaks it, else the newest (the client decides whether to go on). */
export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === "string" && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : SUPPORTED_PROTOCOL_VERSIONS[0];
}

/**
 * The `initialize` result: every capability the gateway can forward — which upstream has what is
 * decided per request (a server without prompts contributes none to `prompts/list`).
 */
export function initializeResult(protocolVersion: string, serverCount: number): Record<string, unknown> {
  return {
    protocolVersion,
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
      logging: {},
    },
    serverInfo: { name: "conduit-mcp-gateway", title: "Conduit MCP gateway", version: VERSION },
    instructions: `Tools, prompts and resources of ${serverCount} MCP server${serverCount === 1 ? "" : "s"}; every name is <server>__<name>.`,
  };
}
