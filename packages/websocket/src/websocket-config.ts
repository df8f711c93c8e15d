import type { IncomingMessage } from "node:http";

export type WebSocketAuthStrategy = "bearer" | "apiKey" | "basic" | "custom" | "none";

/** The identity a validator returns; the auth package's `AuthResult` and `AuthenticatedUser` both fit. */
export interface WebSocketUser {
  id: string;
  [field: string]: unknown;
}

/**
 * Validates a credential taken from the upgrade request: the bearer token, the API key,
 * the decoded `username:password` of basic auth, or what `extractToken` returned. Returns
 * the user, or null to refuse. A throw or a timeout refuses too.
 */
export type WebSocketTokenValidator = (
  token: string,
  context: { request: IncomingMessage },
) => WebSocketUser | null | undefined | Promise<WebSocketUser | null | undefined>;

export interface WebSocketAuthConfig {
  strategy: WebSocketAuthStrategy;
  validate?: WebSocketTokenValidator;
  /**
   * Header carrying the credential, as the HTTP auth's `headerName` (default `x-api-key` for
   * `apiKey`, `authorization` for `bearer` and `basic`). Give both surfaces the same value.
   */
  headerName?: string;
  /** Also accept the credential from this cookie (after the header), as the HTTP auth's `cookieName`. */
  cookieName?: string;
  /** Also accept the credential from this query parameter (browsers cannot set upgrade headers). Off by default: URLs get logged. */
  queryParam?: string;
  /** The `custom` strategy's credential. */
  extractToken?: (request: IncomingMessage) => string | null | undefined;
  /** Refuse when validation takes longer (default 5 000 ms). */
  timeoutMs?: number;
}

/** Spec `WebSocketConfig`. */
export interface WebSocketConfig {
  /** Default `/ws`. */
  path?: string;
  /** Default 1 000; one more is refused at the upgrade with 503. */
  maxConnections?: number;
  /** Milliseconds between pings (default 30 000). */
  pingInterval?: number;
  /** A connection that does not answer a ping within this is terminated (default 10 000). */
  pongTimeout?: number;
  /** Bytes per message (default 1 MB); larger closes the socket with 1009. */
  maxMessageSize?: number;
  /** Default: no auth. */
  auth?: WebSocketAuthConfig;
}

export type ResolvedWebSocketConfig = Required<Omit<WebSocketConfig, "auth">> & { auth: WebSocketAuthConfig };

export const DEFAULT_WEBSOCKET_CONFIG: ResolvedWebSocketConfig = Object.freeze({
  path: "/ws",
  maxConnections: 1000,
  pingInterval: 30_000,
  pongTimeout: 10_000,
  maxMessageSize: 1024 * 1024,
  auth: { strategy: "none" },
}) as ResolvedWebSocketConfig;

export function resolveWebSocketConfig(config: WebSocketConfig = {}): ResolvedWebSocketConfig {
  const defined = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_WEBSOCKET_CONFIG, ...defined } as ResolvedWebSocketConfig;
}
