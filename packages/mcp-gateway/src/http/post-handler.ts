import { randomBytes } from "node:crypto";
import { type RawResponse, type ServerContext, isRawResponse, rawResponse } from "@conduit-ai/server-core";
import { recordGuardrailHits } from "@conduit-ai/server-core/internal";
import type { Caller } from "../auth/caller.js";
import type { DispatchContext } from "../dispatch/dispatch-context.js";
import { dispatch } from "../dispatch/dispatch.js";
import { SUPPORTED_PROTOCOL_VERSIONS, initializeResult, negotiateProtocolVersion } from "../dispatch/initialize.js";
import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import {
  type RpcNotification,
  type RpcRequest,
  errorMessage,
  notificationMessage,
  parseIncoming,
  resultMessage,
} from "../jsonrpc/json-rpc-message.js";
import type { LiveSession } from "../session/live-session.js";
import { accepted, jsonAnswer, rpcErrorAnswer } from "./answers.js";
import { type EndpointDependencies, sessionOf, unauthorized } from "./endpoint-deps.js";
import { MessageChannel } from "./message-channel.js";
import { RequestAnswer } from "./request-answer.js";
import { SSE_HEADERS, sseBody } from "./sse-body.js";

const accepts = (accept: string, type: RegExp) => type.test(accept) || /\*\/\*/.test(accept);
/** Reused for every body: `fatal` refuses bytes that are not UTF-8 (a parse error, not mojibake). */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * `POST <path>`: one JSON-RPC message. `initialize` opens a session (`Mcp-Session-Id` in the
 * answer); other requests name theirs. A request is answered with JSON, or with an SSE stream when
 * the client asked for progress (its `_meta.progressToken`) and accepts `text/event-stream`: the
 * progress notifications, then the response. Notifications and responses get 202. JSON-RPC errors
 * of a request travel in a 200 answer; HTTP statuses are for the transport (400, 401, 404, 406, 415).
 */
export async function handlePost(ctx: ServerContext, dependencies: EndpointDependencies): Promise<RawResponse> {
  const resolution = await dependencies.callers.resolve(ctx);
  if ("refused" in resolution) return unauthorized(dependencies, resolution.refused);
  const caller = resolution.caller;
  if (!/^application\/json\b/i.test((ctx.header("content-type") ?? "").trim()))
    return rpcErrorAnswer(415, new RpcError(RpcErrorCode.INVALID_REQUEST, "Unsupported Media Type: Content-Type must be application/json"));
  const accept = ctx.header("accept") ?? "*/*";
  const acceptsJson = accepts(accept, /application\/(json|\*)/i);
  const acceptsSse = accepts(accept, /text\/(event-stream|\*)/i);
  if (!acceptsJson && !acceptsSse)
    return rpcErrorAnswer(406, new RpcError(RpcErrorCode.INVALID_REQUEST, "Not Acceptable: accept application/json and text/event-stream"));
  const raw = await ctx.readRawBody();
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(raw ?? new Uint8Array()));
  } catch {
    return rpcErrorAnswer(400, new RpcError(RpcErrorCode.PARSE_ERROR, "Parse error: the body is not JSON"));
  }
  let incoming: ReturnType<typeof parseIncoming>;
  try {
    incoming = parseIncoming(value);
  } catch (error) {
    return rpcErrorAnswer(400, error as RpcError);
  }
  if (incoming.kind === "request" && incoming.message.method === "initialize")
    return initialize(incoming.message, caller, dependencies, acceptsJson);
  const version = ctx.header("mcp-protocol-version");
  if (version !== undefined && !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version))
    return rpcErrorAnswer(
      400,
      new RpcError(RpcErrorCode.INVALID_REQUEST, `Unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))}`, {
        supported: [...SUPPORTED_PROTOCOL_VERSIONS],
      }),
    );
  const session = await sessionOf(ctx, caller, dependencies);
  if (isRawResponse(session)) return session;
  if (incoming.kind === "notification") {
    onNotification(session, incoming.message, dependencies);
    return accepted();
  }
  if (incoming.kind === "response") {
    // The client's answer to a server's request: the call waiting for it may be on another process.
    if (!session.answerClient(incoming.message)) dependencies.relay?.publishResponse(session.id, incoming.message);
    return accepted();
  }
  return answer(ctx, dependencies, session, caller, incoming.message, acceptsJson, acceptsSse);
}

async function initialize(request: RpcRequest, caller: Caller, dependencies: EndpointDependencies, acceptsJson: boolean) {
  const params = request.params ?? {};
  const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
  const id = randomBytes(24).toString("base64url");
  const clientInfo = params.clientInfo as { name?: unknown; version?: unknown } | undefined;
  const core = {
    id,
    principal: caller.principal,
    protocolVersion,
    ...(typeof clientInfo?.name === "string" ? { clientInfo: { name: clientInfo.name, version: String(clientInfo.version ?? "") } } : {}),
    ...(typeof params.capabilities === "object" && params.capabilities !== null
      ? { clientCapabilities: params.capabilities as Record<string, unknown> }
      : {}),
    createdAt: Date.now(),
  };
  await dependencies.gateway.store.create(core, dependencies.sessionTtlMs);
  dependencies.sessions.adopt({ ...core, upstream: {}, subscriptions: [] });
  const message = resultMessage(request.id, initializeResult(protocolVersion, dependencies.gateway.serverNames.length));
  if (acceptsJson) return jsonAnswer(200, message, { "mcp-session-id": id });
  const channel = new MessageChannel();
  channel.finish(message);
  return rawResponse(sseBody(channel, 0, new AbortController().signal), { headers: { ...SSE_HEADERS, "mcp-session-id": id } });
}

/**
 * A client notification: a cancellation aborts its request (the upstream is told by the SDK) —
 * here, or on the process serving it through the relay; a change of its roots reaches every server
 * it is connected to, on every process; the rest need nothing.
 */
function onNotification(session: LiveSession, notification: RpcNotification, dependencies: EndpointDependencies): void {
  if (notification.method === "notifications/roots/list_changed") {
    void session.notifyUpstreams(notification.method);
    dependencies.relay?.publishNotification(session.id, notification.method);
    return;
  }
  if (notification.method !== "notifications/cancelled") return;
  const requestId = notification.params?.requestId;
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  const call = session.inflight.get(String(requestId));
  if (call) call.abort(new Error("cancelled by the client"));
  else dependencies.relay?.publishCancel(session.id, String(requestId));
}

function answer(
  ctx: ServerContext,
  dependencies: EndpointDependencies,
  session: LiveSession,
  caller: Caller,
  request: RpcRequest,
  acceptsJson: boolean,
  acceptsSse: boolean,
): Promise<RawResponse> {
  const key = String(request.id);
  const controller = new AbortController();
  const onLeave = () => controller.abort(ctx.abortSignal.reason);
  ctx.abortSignal.addEventListener("abort", onLeave, { once: true });
  session.inflight.set(key, controller);
  const progressToken = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const streamNow = acceptsSse && (progressToken !== undefined || !acceptsJson);
  const reply = new RequestAnswer({ acceptsSse, streamNow, keepAliveMs: dependencies.keepAliveMs, signal: ctx.abortSignal });
  const context: DispatchContext = {
    gateway: dependencies.gateway,
    session,
    caller,
    requestId: request.id,
    signal: controller.signal,
    progress: streamNow ? (params) => void reply.push(notificationMessage("notifications/progress", params)) : undefined,
    route: (message) => reply.push(message),
    traceSpan: ctx.traceSpan,
    recordGuardrailHits: (hits) => recordGuardrailHits(ctx, hits),
  };
  const work = dispatch(context, request.method, request.params ?? {})
    .then((result) => resultMessage(request.id, result))
    .catch((error: unknown) => errorMessage(request.id, asRpcError(error, dependencies)))
    .finally(() => {
      ctx.abortSignal.removeEventListener("abort", onLeave);
      if (session.inflight.get(key) === controller) session.inflight.delete(key);
      session.lastUsed = Date.now();
    });
  void work.then((message) => reply.finish(message));
  return reply.response;
}

function asRpcError(error: unknown, dependencies: EndpointDependencies): RpcError {
  if (RpcError.isInstance(error)) return error;
  dependencies.onWarning(`mcp-gateway: request failed (${error instanceof Error ? error.message : String(error)})`);
  return new RpcError(RpcErrorCode.INTERNAL_ERROR, "Internal error");
}
