import { type RawResponse, type ServerContext, isRawResponse, rawResponse } from "@conduit-ai/server-core";
import { recordGuardrailHits } from "@conduit-ai/server-core/internal";
import { allowedServers } from "../dispatch/list-methods.js";
import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import { rpcErrorAnswer } from "./answers.js";
import { type EndpointDependencies, sessionOf, unauthorized } from "./endpoint-deps.js";
import { SSE_HEADERS, sseBody } from "./sse-body.js";

/**
 * `GET <path>`: the session's stream of server notifications (list changes, resource updates, log
 * messages) on this process. Opening it connects the session's servers here, so their
 * notifications flow even when its requests are served by another process. With a tool guard,
 * log messages are checked by the response guardrails on their way (`guardedLogMessage`).
 */
export async function handleGet(ctx: ServerContext, dependencies: EndpointDependencies): Promise<RawResponse> {
  const resolution = await dependencies.callers.resolve(ctx);
  if ("refused" in resolution) return unauthorized(dependencies, resolution.refused);
  if (!/text\/event-stream|\*\/\*/i.test(ctx.header("accept") ?? ""))
    return rpcErrorAnswer(406, new RpcError(RpcErrorCode.INVALID_REQUEST, "Not Acceptable: the GET stream is text/event-stream"));
  const session = await sessionOf(ctx, resolution.caller, dependencies);
  if (isRawResponse(session)) return session;
  // The guardrail hits of the servers' log messages on this stream: this GET request's live feed entry and span.
  const channel = session.openStream((hits) => recordGuardrailHits(ctx, hits));
  for (const server of allowedServers({ gateway: dependencies.gateway, caller: resolution.caller }))
    void session
      .connection(server)
      .request("ping", undefined)
      .catch(() => undefined);
  return rawResponse(sseBody(channel, dependencies.keepAliveMs, ctx.abortSignal), { headers: SSE_HEADERS });
}

/** `DELETE <path>`: the session ends everywhere — its record, its upstream sessions, its streams. */
export async function handleDelete(ctx: ServerContext, dependencies: EndpointDependencies): Promise<RawResponse> {
  const resolution = await dependencies.callers.resolve(ctx);
  if ("refused" in resolution) return unauthorized(dependencies, resolution.refused);
  const session = await sessionOf(ctx, resolution.caller, dependencies);
  if (isRawResponse(session)) return session;
  await dependencies.gateway.store.delete(session.id);
  await dependencies.sessions.end(session.id);
  return rawResponse(null, { status: 200 });
}
