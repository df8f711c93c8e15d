import type { RawResponse, ServerContext } from "@conduit-ai/server-core";
import type { Caller } from "../auth/caller.js";
import type { CallerResolver } from "../auth/caller-resolver.js";
import { type OAuthResource, bearerChallenge } from "../auth/oauth-resource.js";
import type { GatewayState } from "../dispatch/dispatch-context.js";
import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import type { LiveSession } from "../session/live-session.js";
import type { SessionRelay } from "../session/session-relay.js";
import type { LiveSessions } from "../session/live-sessions.js";
import { rpcErrorAnswer } from "./answers.js";

/** What the endpoint's handlers share. */
export interface EndpointDependencies {
  gateway: GatewayState;
  callers: CallerResolver;
  sessions: LiveSessions;
  oauth: OAuthResource | undefined;
  sessionTtlMs: number;
  keepAliveMs: number;
  /** Cancellations, client answers and roots changes for work other processes do (sessions on Redis). */
  relay: SessionRelay | undefined;
  onWarning(message: string): void;
}

/** 401 with the challenge that leads an MCP client to the protected-resource metadata. */
export function unauthorized(dependencies: EndpointDependencies, refused: "missing" | "invalid"): RawResponse {
  const message =
    refused === "missing"
      ? "Unauthorized: send Authorization: Bearer <key or OAuth access token>"
      : "Unauthorized: the credential is not valid here";
  return rpcErrorAnswer(
    401,
    new RpcError(RpcErrorCode.INVALID_REQUEST, message, { code: refused === "missing" ? "AUTH_REQUIRED" : "INVALID_CREDENTIAL" }),
    { "www-authenticate": bearerChallenge(dependencies.oauth, refused === "invalid") },
  );
}

/** A session id is visible ASCII (MCP's rule); anything else cannot name one. */
const SESSION_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * The caller's session named by `Mcp-Session-Id`, its idle expiry refreshed (one store round trip):
 * 400 without the header, 404 when unknown, expired, deleted or opened by someone else — the client
 * then initializes a new one.
 */
export async function sessionOf(
  ctx: ServerContext,
  caller: Caller,
  dependencies: EndpointDependencies,
): Promise<LiveSession | RawResponse> {
  const id = ctx.header("mcp-session-id");
  if (id === undefined)
    return rpcErrorAnswer(
      400,
      new RpcError(RpcErrorCode.INVALID_REQUEST, "Bad Request: the Mcp-Session-Id header is required (initialize first)"),
    );
  const record = SESSION_ID.test(id) ? await dependencies.gateway.store.touch(id, dependencies.sessionTtlMs) : undefined;
  if (!record || record.principal !== caller.principal)
    return rpcErrorAnswer(
      404,
      new RpcError(RpcErrorCode.INVALID_REQUEST, "Session not found: initialize a new session", { code: "SESSION_NOT_FOUND" }),
    );
  const session = dependencies.sessions.adopt(record);
  session.callerToken = { accessToken: caller.accessToken };
  session.callerIdentity = caller.identity;
  return session;
}
