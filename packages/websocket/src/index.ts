/**
 * @conduit-ai/websocket — the WebSocket surface of Conduit on `ws`: JSON messages routed
 * by `type`, auth at the upgrade, heartbeats, limits, the standard agent handler and
 * graceful shutdown, attached to any adapter's Node server.
 */
export { registerAgentHandlers } from "./agent-handlers.js";
export { type AttachWebSocketOptions, attachWebSocket } from "./attach-websocket.js";
export {
  type ClientMessage,
  type ParsedClientMessage,
  type ServerMessage,
  type ServerMessageType,
  parseClientMessage,
} from "./message-protocol.js";
export { type UpgradeAuthResult, authenticateUpgrade } from "./upgrade-auth.js";
export {
  DEFAULT_WEBSOCKET_CONFIG,
  type ResolvedWebSocketConfig,
  type WebSocketAuthConfig,
  type WebSocketAuthStrategy,
  type WebSocketConfig,
  type WebSocketTokenValidator,
  type WebSocketUser,
  resolveWebSocketConfig,
} from "./websocket-config.js";
export { WebSocketConnection } from "./websocket-connection.js";
export {
  ConduitWebSocketServer,
  type WebSocketConnectionHandler,
  type WebSocketMessageHandler,
  type WebSocketMessageKind,
  type WebSocketServerOptions,
} from "./websocket-server.js";
export { DEFAULT_RATE_LIMITED_TYPES } from "./rate-limit-gate.js";
