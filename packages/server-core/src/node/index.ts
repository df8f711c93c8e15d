/**
 * `@conduit-ai/server-core/node`: Conduit on a Node `http.Server` — the adapter base every Node
 * framework extends, the shared `IncomingMessage`/`ServerResponse` bridge, the server guards,
 * and the helpers of the framework-native forms (routers, plugins, middleware).
 */
export { NodeServerAdapter } from "./node-server-adapter.js";
export { nativeRoutePath } from "./native-route-path.js";
export type { NativeRouterSyntax } from "./native-route-path.js";
export { handleNodeRequest, toIncomingRequest, watchDisconnect, writeNodeResponse } from "./node-bridge.js";
export type { NodeRequestOptions } from "./node-bridge.js";
export { lingerBeforeClose } from "./lingering-close.js";
export { guardNodeServer, rawErrorResponse } from "./server-guards.js";
export { upgradeContext } from "./upgrade-context.js";
export { STATIC_CONTENT_TYPES, createStaticRoutes } from "./static-routes.js";
export type { StaticRoutesOptions } from "./static-routes.js";
export { claimsRequest } from "../adapter/mounting.js";
export { joinPaths } from "../core/pipeline/path-pattern.js";
export { type EventsRead, type UnreadNodeStream, isUnreadNodeStream, readEventsUpTo } from "../core/body/read-events.js";
export { answerUpgradeOverHttp } from "./upgrade-over-http.js";
