/**
 * The contract between the AI surfaces (proxy `/v1/*`, codex, `/api/agent/*`, `/ws`) and a
 * gatekeeper such as `@conduit-ai/governance` (virtual keys, limits, budgets). The surfaces know
 * only this interface; the gatekeeper knows nothing of the surfaces. One `admit` before the work,
 * one `settle` after it, whatever the surface.
 */

/** Which surface asks: decides the error shape the refusal is written in. */
export type GateSurface = "anthropic" | "openai" | "codex" | "api" | "ws" | "mcp";

/**
 * The largest output cap a client may ask for (`max_tokens`, `max_completion_tokens`,
 * `max_output_tokens`, `maxTokens`): no model answers more, and a reservation of more could not
 * be counted. Surfaces answer a larger one with a 400 naming the field; the gate refuses it too.
 */
export const MAX_OUTPUT_TOKENS_LIMIT = 10_000_000;

/** What the surface knows before it calls upstream. */
export interface GateRequest {
  /** The client's credential as presented (`x-api-key`, `Authorization: Bearer`, query or cookie); undefined when none. */
  credential: string | undefined;
  surface: GateSurface;
  /** The model the client asked for (as named by the client), when the call has one: the allow-list checks this name. */
  model?: string;
  /**
   * The models the call may reach when `model` is a routing name (an alias's target and its
   * fallbacks, e.g. `anthropic/claude-haiku-4-5`, `openai/gpt-4o`): the reservation is priced at
   * the dearest of them. Absent: `model` itself.
   */
  models?: readonly string[];
  /** Input tokens estimated from the request body. */
  estimatedInputTokens: number;
  /** `max_tokens` / `max_output_tokens` of the request, when given. */
  maxOutputTokens?: number;
  /** Aborts a wait in the concurrency queue when the client leaves. */
  signal?: AbortSignal;
  /**
   * The call's own timeout (ms, the route's `timeoutMs`): its concurrency lease is held this
   * long (plus a small margin) when the process cannot free it, and renewed while the call runs.
   */
  timeoutMs?: number;
}

/** Real usage of one finished call, as upstream reported it. */
export interface GateUsage {
  /** The model that served (after routing or fallback). */
  model: string;
  /** What served it: `anthropic/<model>`, `<provider>/<model>`, `codex/<model>`. */
  target?: string;
  /** Input tokens at the full input price (cache reads and writes apart), as `MeteredUsage.input`. */
  inputTokens: number;
  /** Every output token, reasoning included. */
  outputTokens: number;
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache for 5 minutes (or for a TTL the vendor did not name). */
  cacheWriteTokens?: number;
  /** Input tokens written to the prompt cache for 1 hour (Anthropic bills them at 2× input). */
  cacheWrite1hTokens?: number;
  /** Of `outputTokens`, those spent reasoning (priced at the row's `reasoning`). */
  reasoningTokens?: number;
  /** Uses of tools the vendor runs and bills per use. */
  serverTools?: { webSearch?: number };
  /** The HTTP status the client got (a stream that failed mid-way: the status it started with). */
  status: number;
  latencyMs: number;
  /** A tool call (the MCP gateway): recorded as a `kind: "tool"` usage event; never its arguments or result. */
  tool?: { server: string; name: string };
  /** The guardrail hits of the call (names, actions, entity types): never the matched text. */
  guardrails?: GateGuardrailHit[];
  /** Answered from the response cache: no tokens charged; what the stored answer cost when it was made. */
  savedUsd?: number;
}

/** One guardrail decision of a call, as the usage event records it. */
export interface GateGuardrailHit {
  guardrail: string;
  action: "block" | "mask" | "log";
  direction: "request" | "response";
  entity: string;
}

/**
 * What MCP servers and tools a key or team may use: `servers` names (exact), `tools` namespaced
 * names (`<server>__<tool>`, `*` at the end matches any rest, a leading `!` excludes). Absent lists
 * allow everything.
 */
export interface McpAccessPolicy {
  servers?: string[];
  tools?: string[];
}

/** Who was admitted; surfaces may log the ids, never a secret. */
export interface GateIdentity {
  keyId: string;
  name: string;
  team?: string;
  user?: string;
  /**
   * The MCP policies that apply (the key's, then its team's): a server or tool must pass every
   * one. Absent or empty: no restriction beyond the gateway's own server list.
   */
  mcp?: McpAccessPolicy[];
  /**
   * The guardrail names the team and then the key add to the configured defaults (`!name`
   * removes one), in that order. Absent: the defaults alone.
   */
  guardrails?: string[];
  /** The key's (else its team's) choice for the proxy's response cache; absent: the server's default. */
  cache?: boolean;
}

/** How a call settled at its reservation ended (`GateAdmission.settleAtReservation`). */
export interface GateReservationOutcome {
  /** The HTTP status the client got (499 when it left before any answer). */
  status: number;
  latencyMs: number;
  /** The model that served, when known (named in the usage event; the price stays the reservation's). */
  model?: string;
  /** What served it, as in `GateUsage.target`. */
  target?: string;
  /** The call's guardrail hits (a response a guardrail stopped after the model answered), as in `GateUsage.guardrails`. */
  guardrails?: GateGuardrailHit[];
}

/** An admitted call. Exactly one of `settle`, `settleAtReservation` or `release` must be called, once. */
export interface GateAdmission {
  readonly identity: GateIdentity;
  /** Settle the reservation to real usage, free the concurrency slot, append the usage event. */
  settle(usage: GateUsage): Promise<void>;
  /**
   * Settle at exactly what was reserved — the estimated input and the output cap (the gate's
   * default when the request named none), at the price the reservation was priced at — and
   * record the usage event as estimated: the client left before upstream reported usage, and
   * upstream may have served and charged the call. Optional: a surface whose gate lacks it
   * settles the reservation's tokens it knows (`maxOutputTokens ?? 0`) through `settle`.
   */
  settleAtReservation?(outcome: GateReservationOutcome): Promise<void>;
  /** The call never reached upstream: drop the reservation and free the slot, charging nothing. */
  release(): Promise<void>;
}

/** Why a call was refused; the surface writes it in its own error shape. */
export type GateRefusalReason =
  | "missing_key"
  | "invalid_key"
  /** The stored record of the key (or its team) cannot be read: that key is refused, the others work. */
  | "invalid_key_record"
  | "model_not_allowed"
  /** The model has no price and the key or its team has a budget (`keys.unpricedModels: "refuse"`). */
  | "model_unpriced"
  /** A number the gate cannot count (an output cap above `MAX_OUTPUT_TOKENS_LIMIT`). */
  | "invalid_request"
  | "rate_limited"
  | "concurrency_timeout"
  | "budget_exceeded"
  | "store_unavailable";

/** A refusal: `admit` resolves to this instead of throwing. */
export interface GateRefusal {
  refused: true;
  status: 400 | 401 | 403 | 429 | 503;
  reason: GateRefusalReason;
  message: string;
  /** Seconds until a retry can succeed; absent when it never will (a `total` budget). */
  retryAfterSeconds?: number;
  /** The client should not retry (`x-should-retry: false`). */
  final: boolean;
}

/**
 * A gatekeeper every AI surface consults. Absent → the surface runs as before (its own client
 * keys, no budgets).
 *
 * @example
 * const decision = await gate.admit({ credential, surface: "anthropic", model, estimatedInputTokens: 1200, maxOutputTokens: 1024 });
 * if ("refused" in decision) return anthropicRefusal(decision);
 * try { const usage = await callUpstream(); await decision.settle(usage); } catch (error) { await decision.release(); throw error; }
 */
export interface Gate {
  admit(request: GateRequest): Promise<GateAdmission | GateRefusal>;
  /**
   * Who a credential belongs to, counting nothing (no rpm, no slot): what a surface needs for work
   * that is not metered, such as the MCP gateway's listings. Undefined for an unknown, expired or
   * revoked credential. Optional: a surface without it admits (and releases) instead.
   */
  identifyCredential?(credential: string): Promise<GateIdentity | undefined>;
}
