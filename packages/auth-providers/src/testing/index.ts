/** Test helpers (not published): a local identity provider speaking JWKS, OIDC discovery, introspection and userinfo; a real OpenID Provider (oidc-provider). */
export { type IdentityServer, type IdentityServerOptions, type SigningKey, startIdentityServer } from "./identity-server.js";
export { type OidcServer, startOidcServer } from "./oidc-server.js";
export { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "./admin-api-fake.js";
