import { type GateAdmission, type GateGuardrailHit, type GateRefusal, type TraceSpan, getTracing, withSpan } from "@conduit-ai/server-core";
import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import type { DispatchContext } from "./dispatch-context.js";
import { guardedProgress } from "./notification-guard.js";
import { resolveTarget } from "./resolve-target.js";
import { type McpGuardedCall, argumentTexts, guardTexts, resultTexts } from "./tool-guard.js";

/** A refusal of the gate as the JSON-RPC error of one tool call (the session goes on). */
function refusalError(refusal: GateRefusal): RpcError {
  const code = refusal.status === 401 ? RpcErrorCode.INVALID_REQUEST : RpcErrorCode.LIMITED;
  return new RpcError(code, refusal.message, {
    reason: refusal.reason,
    ...(refusal.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: refusal.retryAfterSeconds }),
  });
}

/** The usage status of a finished call: 200, 500 for a tool's own error result, 400 a guardrail's block, 502/504 for the upstream, 499 cancelled. */
function statusOf(result: Record<string, unknown> | undefined, error: unknown, signal: AbortSignal): number {
  if (result) return result.isError === true ? 500 : 200;
  if (signal.aborted) return 499;
  if (RpcError.isInstance(error) && error.data?.reason === "guardrail_violation") return 400;
  return RpcError.isInstance(error) && error.code === RpcErrorCode.UPSTREAM_TIMEOUT ? 504 : 502;
}

function spanAttributes(context: DispatchContext, server: string, tool: string) {
  return {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": tool,
    "gen_ai.tool.type": "extension",
    "mcp.method.name": "tools/call",
    "mcp.session.id": context.session.id,
    "mcp.protocol.version": context.session.record.protocolVersion,
    "jsonrpc.request.id": String(context.requestId),
    "conduit.mcp.server": server,
    ...(context.caller.identity ? { "conduit.key.id": context.caller.identity.keyId } : {}),
  };
}

/**
 * `tools/call`: the tool resolved and checked against the caller's policies, admitted by the gate
 * (a virtual key: rpm, concurrency, budget — refused as a JSON-RPC error, the session goes on),
 * called upstream with the client's progress token and an `execute_tool <tool>` span under the
 * request's span (its W3C context in `_meta`, and in the HTTP headers of an HTTP upstream), then
 * settled as a `kind: "tool"` usage event: server, tool, duration, status and guardrail hits — never
 * arguments or results. With a tool guard, the arguments are checked before they go upstream and
 * the result before the client gets it (a block is a JSON-RPC error, a mask rewrites the texts),
 * and each progress message on its way (`guardedProgress`), its hits the call's.
 *
 * @example
 * await callTool(context, { name: "files__read_file", arguments: { path: "/tmp/a" } });
 */
export async function callTool(context: DispatchContext, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const target = resolveTarget(context, "Tool", params.name, true);
  let admission: GateAdmission | undefined;
  const gate = context.gateway.gate;
  if (gate && context.caller.kind === "virtual-key") {
    const decision = await gate.admit({
      credential: context.caller.credential,
      surface: "mcp",
      estimatedInputTokens: 0,
      maxOutputTokens: 0,
      signal: context.signal,
    });
    if ("refused" in decision) throw refusalError(decision);
    admission = decision;
  }
  const started = performance.now();
  const hits: GateGuardrailHit[] = [];
  let result: Record<string, unknown> | undefined;
  let failure: unknown;
  try {
    const span: Parameters<typeof withSpan>[1] = {
      kind: "internal",
      attributes: spanAttributes(context, target.server, target.namespacedName),
      ...(context.traceSpan ? { parent: context.traceSpan } : {}),
    };
    result = await withSpan(`execute_tool ${target.namespacedName}`, span, (traceSpan: TraceSpan | undefined) =>
      call(context, { server: target.server, tool: target.name, namespacedName: target.namespacedName }, params, traceSpan, hits),
    );
    return result;
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    const status = statusOf(result, failure, context.signal);
    // Off the answer's path: the settlement is one store call the client need not wait for.
    void admission
      ?.settle({
        model: target.namespacedName,
        target: `mcp/${target.server}`,
        inputTokens: 0,
        outputTokens: 0,
        status,
        latencyMs: performance.now() - started,
        tool: { server: target.server, name: target.name },
        ...(hits.length > 0 ? { guardrails: hits } : {}),
      })
      .catch(() => undefined);
  }
}

async function call(
  context: DispatchContext,
  target: Omit<McpGuardedCall, "identity">,
  params: Record<string, unknown>,
  span: TraceSpan | undefined,
  hits: GateGuardrailHit[],
): Promise<Record<string, unknown>> {
  const { server, tool } = target;
  const guard = context.gateway.toolGuard;
  const guarded: McpGuardedCall = { ...target, identity: context.caller.identity };
  const record = (found: GateGuardrailHit[]) => {
    hits.push(...found);
    context.recordGuardrailHits?.(found);
  };
  if (guard && params.arguments !== null && typeof params.arguments === "object" && !Array.isArray(params.arguments)) {
    // Checked on a copy: a mask changes what goes upstream, never the client's own request.
    const args = structuredClone(params.arguments as Record<string, unknown>);
    await guardTexts(guard, "request", argumentTexts(args), guarded, record);
    params = { ...params, arguments: args };
  }
  // Captured content is what went upstream: masked, and never arguments a guardrail blocked.
  if (span && getTracing().captureContent) span.setAttributes({ "gen_ai.tool.call.arguments": JSON.stringify(params.arguments ?? {}) });
  const meta = { ...((params._meta as Record<string, unknown> | undefined) ?? {}) };
  const progressToken = meta.progressToken;
  // The upstream gets its own progress token from the SDK; the client's is put back on each notification.
  delete meta.progressToken;
  Object.assign(meta, span?.traceHeaders() ?? {});
  const upstreamParams = { ...params, name: tool, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
  if (Object.keys(meta).length === 0) delete upstreamParams._meta;
  const progress = context.progress;
  // With a guard each progress message is checked on its way; chained, so they keep their order and all go before the result.
  let progressSent: Promise<void> = Promise.resolve();
  const onprogress = (update: Record<string, unknown>) => {
    if (!progress) return;
    if (!guard) return progress({ ...update, progressToken });
    progressSent = progressSent
      .then(() => guardedProgress(guard, update, guarded, record))
      .then((checked) => progress({ ...checked, progressToken }))
      .catch(() => undefined);
  };
  const result = await context.session.connection(server).request("tools/call", upstreamParams, {
    signal: context.signal,
    route: context.route,
    ...(progress && progressToken !== undefined ? { onprogress } : {}),
  });
  await progressSent;
  if (result.isError === true) span?.setAttributes({ "error.type": "tool_error" });
  if (guard) await guardTexts(guard, "response", resultTexts(result), guarded, record);
  if (span && getTracing().captureContent) span.setAttributes({ "gen_ai.tool.call.result": JSON.stringify(result.content ?? result) });
  return result;
}
