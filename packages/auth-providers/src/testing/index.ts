/** Test helpers (not published): a local identity provider speaking JWKS, OIDC discovery, introspection and userinfo. */
export { type IdentityServer, type IdentityServerOptions, type SigningKey, startIdentityServer } from "./identity-server.js";
