import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import { namespaced } from "../names.js";
import type { DispatchContext } from "./dispatch-context.js";
import { allowedServers } from "./list-methods.js";
import { resolveTarget } from "./resolve-target.js";

type Params = Record<string, unknown>;

const forward = (context: DispatchContext, server: string, method: string, params: Params) =>
  context.session.connection(server).request(method, params, { signal: context.signal, route: context.route });

/** `prompts/get`: the prompt of its server, by its own name. */
export async function getPrompt(context: DispatchContext, params: Params) {
  const target = resolveTarget(context, "Prompt", params.name);
  return forward(context, target.server, "prompts/get", { ...params, name: target.name });
}

/** `resources/read`: the resource of its server, its contents' URIs namespaced back. */
export async function readResource(context: DispatchContext, params: Params) {
  const target = resolveTarget(context, "Resource", params.uri);
  const result = await forward(context, target.server, "resources/read", { ...params, uri: target.name });
  const contents = Array.isArray(result.contents) ? (result.contents as Params[]) : [];
  return {
    ...result,
    contents: contents.map((item) => (typeof item.uri === "string" ? { ...item, uri: namespaced(target.server, item.uri) } : item)),
  };
}

/** `resources/subscribe` and `resources/unsubscribe`: forwarded, and recorded so any process re-applies them. */
export async function subscription(context: DispatchContext, params: Params, subscribed: boolean) {
  const target = resolveTarget(context, "Resource", params.uri);
  const result = await forward(context, target.server, subscribed ? "resources/subscribe" : "resources/unsubscribe", {
    ...params,
    uri: target.name,
  });
  const others = context.session.record.subscriptions.filter((uri) => uri !== target.namespacedName);
  context.session.record.subscriptions = subscribed ? [...others, target.namespacedName] : others;
  await context.gateway.store.setSubscription(context.session.id, target.namespacedName, subscribed);
  return result;
}

/** `completion/complete`: routed by its reference (a prompt's name or a resource template's URI). */
export async function complete(context: DispatchContext, params: Params) {
  const ref = params.ref as Params | undefined;
  if (ref?.type === "ref/prompt") {
    const target = resolveTarget(context, "Prompt", ref.name);
    return forward(context, target.server, "completion/complete", { ...params, ref: { ...ref, name: target.name } });
  }
  if (ref?.type === "ref/resource") {
    const target = resolveTarget(context, "Resource", ref.uri);
    return forward(context, target.server, "completion/complete", { ...params, ref: { ...ref, uri: target.name } });
  }
  throw new RpcError(RpcErrorCode.INVALID_PARAMS, 'completion/complete needs ref.type "ref/prompt" or "ref/resource"');
}

const LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

/** `logging/setLevel`: recorded for the session and applied to every server it uses that logs. */
export async function setLogLevel(context: DispatchContext, params: Params) {
  if (typeof params.level !== "string" || !LEVELS.has(params.level))
    throw new RpcError(RpcErrorCode.INVALID_PARAMS, `level must be one of ${[...LEVELS].join(", ")}`);
  context.session.record.logLevel = params.level;
  await context.gateway.store.setLogLevel(context.session.id, params.level);
  await Promise.allSettled(
    allowedServers(context).map(async (server) => {
      const connection = context.session.connection(server);
      if (connection.capabilities && !connection.capabilities.logging) return;
      await connection.request("logging/setLevel", { level: params.level }, { signal: context.signal });
    }),
  );
  return {};
}
