import { randomBytes } from "node:crypto";
import { type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, type JWK, type JWTPayload, SignJWT, exportJWK, generateKeyPair, jwtVerify } from "jose";
import { readBodyText as readBody } from "../read-body.js";

/** One signing key of the fake identity provider. */
export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export interface IdentityServerOptions {
  /** Signing algorithm of the first key. Default RS256. */
  alg?: "RS256" | "PS256" | "ES256" | "ES384" | "EdDSA";
  /** Path appended to the origin to form the issuer (Keycloak `/realms/demo`, Cognito `/eu-west-1_abc`). Default none. */
  issuerPath?: string;
  /** OAuth client allowed to call the introspection endpoint. */
  client?: { id: string; secret: string };
}

export interface IdentityServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `origin` + `issuerPath`. */
  issuer: string;
  /** `issuer` + `/.well-known/jwks.json` (every vendor's JWKS path answers too). */
  jwksUrl: string;
  keys: SigningKey[];
  /** Requests per path, e.g. `hits("/.well-known/jwks.json")`. */
  hits(path: string): number;
  totalJwksFetches(): number;
  /** A signed JWT: `iss`, `iat`, `exp` (1 h) filled in unless given; `header` overrides the protected header. */
  sign(claims: JWTPayload, options?: { key?: SigningKey; header?: Record<string, unknown>; expiresInSec?: number }): Promise<string>;
  /** Adds a new key (new `kid`) and makes it the signing key; `dropOld` removes the others from the JWKS. */
  rotate(options?: { dropOld?: boolean; alg?: IdentityServerOptions["alg"] }): Promise<SigningKey>;
  /** An opaque access token known to introspection and userinfo. */
  issueOpaqueToken(claims: Record<string, unknown>, options?: { active?: boolean; expiresInSec?: number }): string;
  /** Answer every request with this status for a while (outage simulation); undefined restores. */
  failWith(status: number | undefined): void;
  /** Hold every request without answering (a hanging identity provider) until called with false. */
  hang(on: boolean): void;
  close(): Promise<void>;
}

async function newKey(alg: string, index: number): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `key-${index}-${randomBytes(4).toString("hex")}`;
  return { kid, alg, privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

const JWKS_PATH = /(?:jwks\.json|\/certs|\/jwks(?:\/[^/]+)?|\/jwk\/[^/]+)$/;

/**
 * A local identity provider speaking the real wire formats: JWKS (RFC 7517), OIDC discovery,
 * token introspection (RFC 7662, client_secret_basic) and userinfo. Keys are real (jose) and
 * rotate on demand. Every vendor's JWKS path answers with the same key set, so one server
 * stands in for Auth0, Keycloak, Cognito, Firebase, Supabase, Clerk, WorkOS and better-auth.
 *
 * @example
 * const idp = await startIdentityServer({ issuerPath: "/realms/demo" });
 * const token = await idp.sign({ sub: "u1", realm_access: { roles: ["admin"] } });
 */
export async function startIdentityServer(options: IdentityServerOptions = {}): Promise<IdentityServer> {
  const keys: SigningKey[] = [await newKey(options.alg ?? "RS256", 0)];
  let signingKey = keys[0] as SigningKey;
  const hits = new Map<string, number>();
  const opaque = new Map<string, { claims: Record<string, unknown>; active: boolean; exp: number }>();
  let failure: number | undefined;
  let hanging = false;
  const client = options.client ?? { id: "conduit", secret: "conduit-client-secret" };
  let issuer = "";

  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
    response.end(JSON.stringify(body));
  };

  /** Claims of an opaque token we issued, or of a JWT we signed, or undefined. */
  const lookup = async (token: string): Promise<Record<string, unknown> | undefined> => {
    const entry = opaque.get(token);
    if (entry) return entry.active && entry.exp * 1000 > Date.now() ? { ...entry.claims, exp: entry.exp } : undefined;
    for (const key of keys) {
      try {
        return (await jwtVerify(token, key.publicKey, { issuer })).payload as Record<string, unknown>;
      } catch {
        // Try the next key.
      }
    }
    return undefined;
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    if (failure !== undefined) return json(response, failure, { error: "temporarily_unavailable" });
    if (hanging) return; // never answered; `close()` drops the connection
    if (url.pathname.endsWith("/.well-known/openid-configuration")) {
      return json(response, 200, {
        issuer,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        introspection_endpoint: `${issuer}/introspect`,
        userinfo_endpoint: `${issuer}/userinfo`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: [...new Set(keys.map((key) => key.alg))],
      });
    }
    if (JWKS_PATH.test(url.pathname)) return json(response, 200, { keys: keys.map((key) => key.publicJwk) });
    if (url.pathname.endsWith("/introspect") && request.method === "POST") {
      const expected = `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString("base64")}`;
      if (request.headers.authorization !== expected) return json(response, 401, { error: "invalid_client" });
      const form = new URLSearchParams(await readBody(request));
      const claims = await lookup(form.get("token") ?? "");
      return json(response, 200, claims ? { active: true, token_type: "Bearer", client_id: client.id, ...claims } : { active: false });
    }
    if (url.pathname.endsWith("/userinfo")) {
      const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? "");
      const claims = match?.[1] ? await lookup(match[1]) : undefined;
      if (!claims) {
        response.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' });
        return response.end();
      }
      const { exp: _exp, iat: _iat, nbf: _nbf, aud: _aud, iss: _iss, ...userinfo } = claims;
      return json(response, 200, userinfo);
    }
    json(response, 404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer = `${origin}${options.issuerPath ?? ""}`;

  return {
    origin,
    issuer,
    jwksUrl: `${issuer}/.well-known/jwks.json`,
    keys,
    hits: (path) => hits.get(path) ?? 0,
    totalJwksFetches: () => [...hits].filter(([path]) => JWKS_PATH.test(path)).reduce((sum, [, count]) => sum + count, 0),
    async sign(claims, signOptions = {}) {
      const key = signOptions.key ?? signingKey;
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = { iss: issuer, iat: now, exp: now + (signOptions.expiresInSec ?? 3600), ...claims };
      return new SignJWT(payload)
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT", ...signOptions.header })
        .sign(key.privateKey);
    },
    async rotate(rotateOptions = {}) {
      const key = await newKey(rotateOptions.alg ?? signingKey.alg, keys.length);
      if (rotateOptions.dropOld) keys.splice(0, keys.length);
      keys.push(key);
      signingKey = key;
      return key;
    },
    issueOpaqueToken(claims, tokenOptions = {}) {
      const token = randomBytes(24).toString("base64url");
      opaque.set(token, {
        claims,
        active: tokenOptions.active ?? true,
        exp: Math.floor(Date.now() / 1000) + (tokenOptions.expiresInSec ?? 3600),
      });
      return token;
    },
    failWith(status) {
      failure = status;
    },
    hang(on) {
      hanging = on;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
