/**
 * @conduit-ai/mcp-gateway — the team's MCP servers behind one authenticated Streamable HTTP
 * endpoint, with the same virtual keys, limits, usage history, traces and replicas as model traffic.
 */
export { type McpGateway, type McpGatewayOptions, createMcpGateway } from "./create-mcp-gateway.js";
export { type McpGatewayFromConfigOptions, mcpGatewayFromConfig } from "./config/gateway-from-config.js";
export {
  type McpGatewayConfig,
  type McpGatewayConfigInput,
  mcpGatewayConfigSchema,
  mcpSettingsSchema,
} from "./config/gateway-config.js";
export {
  type UpstreamAuth,
  type UpstreamHttpConfig,
  type UpstreamServerConfig,
  type UpstreamStdioConfig,
  upstreamServerSchema,
} from "./config/upstream-config.js";
export { McpGatewayConfigError } from "./errors.js";
export type { McpGuardedCall, McpGuardedText, McpGuardVerdict, McpToolGuard } from "./dispatch/tool-guard.js";
export { RpcError, RpcErrorCode } from "./jsonrpc/json-rpc-error.js";
export { type OAuthResource, type OAuthSubject, protectedResourceMetadataUrl } from "./auth/oauth-resource.js";
export { type AuthProviderSettings, exchangerFromAuthProvider, oauthFromAuthProvider } from "./auth/auth-provider-oauth.js";
export { TokenExchanger, type TokenExchangerOptions } from "./auth/token-exchange.js";
export { type McpSessionRecord, type McpSessionStore, MemorySessionStore, type UpstreamSessionState } from "./session/session-store.js";
export { RedisSessionStore } from "./session/redis-session-store.js";
export { listAllows, serverAllowed, toolAllowed } from "./policy/access-policy.js";
export { SUPPORTED_PROTOCOL_VERSIONS } from "./dispatch/initialize.js";
export { NAME_SEPARATOR, namespaced, splitNamespaced } from "./names.js";
