/**
 * One server of `bench:auth`, in its own process: `auth-server.ts <mode> <framework> <jwksUrl> <issuer>`.
 * Every mode serves `GET /api/protected` with the adapter's default middleware stack:
 *
 * - none: no authentication (the baseline);
 * - jwt: the `jwt` provider (RS256 through a JWKS fetched once and cached, provider defaults:
 *   verified-token cache and in-memory sessions on);
 * - jwt-verify: the same with the verified-token cache off, so every request checks the RS256 signature;
 * - jwt-ambient: jwt with `ambientContext: true` (AsyncLocalStorage, the context helpers without `ctx`).
 */
import { createJwtProvider, createProviderAuthMiddleware, getCurrentUser } from "@conduit-ai/auth-providers";
import { type ServerFramework, createServer } from "@conduit-ai/server-core";

const [mode, framework, jwksUrl, issuer] = process.argv.slice(2) as [
  "none" | "jwt" | "jwt-verify" | "jwt-ambient",
  ServerFramework,
  string,
  string,
];
const server = await createServer(undefined, {
  framework,
  config: { port: 0, host: "127.0.0.1", rateLimit: { enabled: false }, logging: { enabled: false } },
});
if (mode !== "none") {
  const provider = createJwtProvider({ jwksUrl, issuer, audience: "bench", ...(mode === "jwt-verify" ? { verifiedCacheTtlMs: 0 } : {}) });
  server.registerMiddleware(createProviderAuthMiddleware(provider, { ambientContext: mode === "jwt-ambient" }));
}
server.registerRoute({ method: "GET", path: "/protected", handler: (ctx) => ({ ok: true, user: getCurrentUser(ctx)?.id ?? null }) });
await server.start();
process.on("SIGINT", () => process.exit(0));
process.send?.({ port: server.getStatus().port });
