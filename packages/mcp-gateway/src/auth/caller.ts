import type { GateIdentity, McpAccessPolicy } from "@conduit-ai/server-core";

/** Who is calling, as the gateway authenticated them. */
export interface Caller {
  /** What sessions are bound to: `key:<id>`, `client:<digest>`, `oauth:<sub>`, `user:<id>`. */
  principal: string;
  kind: "virtual-key" | "client-key" | "oauth" | "server-auth";
  /** The virtual key as presented: tool calls are admitted by the gate with it (never stored, never sent upstream). */
  credential?: string;
  /** A virtual key's identity, with its and its team's MCP policies. */
  identity?: GateIdentity;
  /** The OAuth access token (forward and exchange servers get it, or a token exchanged for it). */
  accessToken?: string;
}

/** The MCP policies binding a caller (only virtual keys carry any). */
export function policiesOf(caller: Caller): McpAccessPolicy[] | undefined {
  return caller.identity?.mcp;
}
