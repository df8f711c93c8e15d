import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import type { DispatchContext } from "./dispatch-context.js";
import { LIST_METHODS, aggregateList } from "./list-methods.js";
import { complete, getPrompt, readResource, setLogLevel, subscription } from "./routed-methods.js";
import { callTool } from "./tool-call.js";

type Handler = (context: DispatchContext, params: Record<string, unknown>) => Promise<unknown>;

const HANDLERS: Record<string, Handler> = {
  ping: async () => ({}),
  "tools/call": callTool,
  "prompts/get": getPrompt,
  "resources/read": readResource,
  "resources/subscribe": (context, params) => subscription(context, params, true),
  "resources/unsubscribe": (context, params) => subscription(context, params, false),
  "completion/complete": complete,
  "logging/setLevel": setLogLevel,
};
for (const method of Object.keys(LIST_METHODS)) HANDLERS[method] = (context) => aggregateList(context, method);

/**
 * The answer to one client request of an initialized session (everything but `initialize`):
 * its result, or an `RpcError` to send back. Methods the gateway does not serve are -32601.
 *
 * @example
 * const result = await dispatch(context, "tools/list", {});
 */
export async function dispatch(context: DispatchContext, method: string, params: Record<string, unknown>): Promise<unknown> {
  const handler = Object.hasOwn(HANDLERS, method) ? HANDLERS[method] : undefined;
  if (!handler) throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, `Method not found: ${method}`);
  return handler(context, params);
}
