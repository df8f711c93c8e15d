import type { Gate, GateGuardrailHit, TraceSpan } from "@conduit-ai/server-core";
import type { Caller } from "../auth/caller.js";
import type { McpToolGuard } from "./tool-guard.js";
import type { RpcId } from "../jsonrpc/json-rpc-message.js";
import type { ClientRoute } from "../session/client-requests.js";
import type { LiveSession } from "../session/live-session.js";
import type { McpSessionStore } from "../session/session-store.js";

/** What the gateway is, for the methods it answers. */
export interface GatewayState {
  /** The servers it serves, in configuration order. */
  serverNames: readonly string[];
  gate: Gate | undefined;
  store: McpSessionStore;
  timeoutMs: number;
  /** Checks tool arguments and results (guardrails); absent: they pass as they are. */
  toolGuard?: McpToolGuard | undefined;
}

/** One request being answered. */
export interface DispatchContext {
  gateway: GatewayState;
  session: LiveSession;
  caller: Caller;
  requestId: RpcId;
  signal: AbortSignal;
  /** Sends a progress notification to the client (present when it asked for progress and the answer streams). */
  progress?: ((params: Record<string, unknown>) => void) | undefined;
  /** This request's answer as a stream to the client: a server's request made meanwhile goes there (sampling, elicitation, roots). */
  route?: ClientRoute | undefined;
  traceSpan?: TraceSpan | undefined;
  /** Adds guardrail hits to the HTTP request: its live feed entry and `conduit.guardrail` span events. */
  recordGuardrailHits?: ((hits: readonly GateGuardrailHit[]) => void) | undefined;
}
