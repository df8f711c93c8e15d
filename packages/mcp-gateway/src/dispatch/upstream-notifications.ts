import { notificationMessage } from "../jsonrpc/json-rpc-message.js";
import { namespaced } from "../names.js";
import type { UpstreamNotification } from "../upstream/upstream-connection.js";

const LIST_CHANGED = new Set([
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
]);

/**
 * An upstream's own notification as the client sees it, or undefined when it is not the client's
 * business: list changes as they are (the client lists again), a resource update with its
 * namespaced URI, a log message with the server as its logger. Progress travels with its request.
 *
 * @example
 * clientNotification("files", { method: "notifications/resources/updated", params: { uri: "file:///a" } });
 * // '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"files__file:///a"}}'
 */
export function clientNotification(server: string, notification: UpstreamNotification): string | undefined {
  const { method, params } = notification;
  if (LIST_CHANGED.has(method)) return notificationMessage(method);
  if (method === "notifications/resources/updated" && typeof params?.uri === "string")
    return notificationMessage(method, { ...params, uri: namespaced(server, params.uri) });
  if (method === "notifications/message" && params)
    return notificationMessage(method, { ...params, logger: typeof params.logger === "string" ? `${server}/${params.logger}` : server });
  return undefined;
}
