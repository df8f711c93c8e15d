/**
 * `@conduit-ai/server-core/node`: Conduit on a Node `http.Server` — the adapter base every Node
 * framework extends, the shared `IncomingMessage`/`ServerResponse` bridge, the server guards,
 * and the helpers of the framework-native forms (routers, plugins, middleware).
 */
export { NodeServerAdapter } from "./node-server-adapter.js";
export * from "./native-route-path.js";
export * from "./node-bridge.js";
export * from "./lingering-close.js";
export * from "./server-guards.js";
export * from "./upgrade-context.js";
export * from "./static-routes.js";
export { claimsRequest } from "../adapter/mounting.js";
export { joinPaths } from "../core/pipeline/path-pattern.js";
export { type EventsRead, type UnreadNodeStream, isUnreadNodeStream, readEventsUpTo } from "../core/body/read-events.js";
export * from "./upgrade-over-http.js";
