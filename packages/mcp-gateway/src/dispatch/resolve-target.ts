import { policiesOf } from "../auth/caller.js";
import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import { splitNamespaced } from "../names.js";
import { serverAllowed, toolAllowed } from "../policy/access-policy.js";
import type { DispatchContext } from "./dispatch-context.js";

/**
 * The server and upstream name a namespaced name (`<server>__<name>`) routes to, once the caller
 * may use it: anything unknown or not allowed is refused alike with -32601 and a clear message,
 * before any upstream is asked. `what` names the kind in the message ("Tool", "Prompt", "Resource").
 *
 * @example
 * resolveTarget(context, "Tool", "github__delete_repo", true); // throws -32601 'Tool "github__delete_repo" is not allowed for this key'
 */
export function resolveTarget(
  context: DispatchContext,
  what: string,
  value: unknown,
  isTool = false,
): { server: string; name: string; namespacedName: string } {
  if (typeof value !== "string" || value.length === 0) throw new RpcError(RpcErrorCode.INVALID_PARAMS, `${what} name missing`);
  const split = splitNamespaced(value);
  if (!split || !context.gateway.serverNames.includes(split.server))
    throw new RpcError(
      RpcErrorCode.METHOD_NOT_FOUND,
      `${what} "${value}" is not available: names are <server>__<name>, and no such server is served here`,
      {
        reason: "unknown",
      },
    );
  const policies = policiesOf(context.caller);
  const allowed = isTool ? toolAllowed(policies, split.server, value) : serverAllowed(policies, split.server);
  if (!allowed)
    throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, `${what} "${value}" is not allowed for this key`, { reason: "not_allowed" });
  return { ...split, namespacedName: value };
}
