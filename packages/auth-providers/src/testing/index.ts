/** Test helpers (not published): a real OpenID Provider (oidc-provider) and a vendor admin API fake. The JWKS/OIDC identity server lives in @conduit-ai/fakes. */
export { type OidcServer, startOidcServer } from "./oidc-server.js";
export { type McpAuthorizationServer, startMcpAuthorizationServer } from "./mcp-authorization-server.js";
export { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "./admin-api-fake.js";
export { type OidcSsoServer, type SsoTestUser, startOidcSsoServer } from "./oidc-sso-server.js";
