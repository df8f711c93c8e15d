/** Limits of a key or a team; a team's cap all its keys together. */
export interface Limits {
  /** Requests per calendar minute (UTC). */
  rpm?: number;
  /** Tokens (input + output) per calendar minute: reserved from the estimate, settled to real usage. */
  tpm?: number;
  /** Calls in flight at once; more wait in a FIFO queue. */
  concurrency?: number;
  /** How long a call waits for a concurrency slot before 429 (default 30 s). */
  queueTimeoutMs?: number;
}

export type BudgetWindow = "day" | "week" | "month" | "total";

export interface Budget {
  usd: number;
  window: BudgetWindow;
}

/**
 * MCP servers and tools a key or team may use through the MCP gateway: `servers` by name,
 * `tools` by namespaced name (`github__*`, `!github__delete_*`). Absent: everything the gateway serves.
 */
export interface McpPolicy {
  servers?: string[];
  tools?: string[];
}

/** What a key or a team is allowed, as the admin API sets it. */
export interface Policy {
  models?: string[];
  limits?: Limits;
  budgets?: Budget[];
  mcp?: McpPolicy;
  /** Guardrail names added to the configured defaults for its calls; `!name` removes one (the team's apply first, then the key's). */
  guardrails?: string[];
  /** The proxy's exact response cache for these calls: true on, false off; absent: the key's team, then the server's `proxy.cache`. */
  cache?: boolean;
}

/** A team: caps its keys together. */
export interface TeamRecord extends Policy {
  id: string;
  name: string;
  createdAt: string;
}

/** A virtual key as stored and answered — never its secret. */
export interface KeyRecord extends Policy {
  id: string;
  name: string;
  team?: string;
  user?: string;
  expiresAt?: string;
  metadata?: Record<string, unknown>;
  /** The secret's last 4 characters. */
  hint: string;
  createdAt: string;
}

/** One budget's state in its current window. */
export interface SpendWindow {
  window: BudgetWindow;
  usd: number;
  spentUsd: number;
  remainingUsd: number;
  /** ISO; undefined for a `total` budget (it never resets). */
  resetsAt?: string;
}
