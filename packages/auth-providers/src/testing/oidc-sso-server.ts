/// <reference path="./oidc-provider.d.ts" />
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";

/** A user of the test OpenID Provider: signs in with their id as the login (any password). */
export interface SsoTestUser {
  name: string;
  email: string;
  groups: string[];
}

/** A real OpenID Provider for single sign-on tests: the authorization code flow with PKCE, logins through its own pages. */
export interface OidcSsoServer {
  /** `http://<host>:<port>`: the issuer (discovery at `/.well-known/openid-configuration`). */
  issuer: string;
  client: { id: string; secret: string };
  /** Registers the relying party's redirect URIs and starts answering (the relying party's port is known only after the issuer's). */
  configure(client: { redirectUris: string[]; postLogoutRedirectUris?: string[] }): Promise<void>;
  /**
   * Walks the provider's own login pages as a browser would (its cookies kept, redirects
   * followed on the provider only) from `authorizationUrl`, signing in as `login`, and returns
   * the URL the provider sends the browser back to (the relying party's callback).
   */
  signInAs(authorizationUrl: string, login: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts panva's `oidc-provider` on an ephemeral loopback port with its development login
 * pages (any password; the login is the user id), consent granted without asking, PKCE
 * required, `groups`, `name` and `email` in the ID token, and RP-initiated logout. `host`
 * defaults to `localhost`, so a console on `127.0.0.1` is another site to the browser, as a
 * real identity provider is.
 *
 * @example
 * const op = await startOidcSsoServer({ alice: { name: "Alice", email: "alice@example.com", groups: ["platform"] } });
 * await op.configure({ redirectUris: [`${consoleOrigin}/console/api/sso/callback`] });
 */
export async function startOidcSsoServer(users: Record<string, SsoTestUser>, host = "localhost"): Promise<OidcSsoServer> {
  const { default: Provider } = await import("oidc-provider");
  const server: Server = createServer((_request, response) => {
    response.statusCode = 503;
    response.end("not configured yet");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const client = { id: "conduit-console", secret: "conduit-console-sso-client-secret" };
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "sso-key-1", alg: "RS256", use: "sig" };
  return {
    issuer,
    client,
    async configure({ redirectUris, postLogoutRedirectUris = [] }) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: client.id,
            client_secret: client.secret,
            grant_types: ["authorization_code"],
            response_types: ["code"],
            redirect_uris: redirectUris,
            post_logout_redirect_uris: postLogoutRedirectUris,
            token_endpoint_auth_method: "client_secret_basic",
          },
        ],
        jwks: { keys: [jwk] },
        cookies: { keys: ["conduit-sso-test-cookie-key"] },
        claims: { openid: ["sub"], profile: ["name", "groups"], email: ["email"] },
        // Scope claims in the ID token itself (the console reads no userinfo).
        conformIdTokenClaims: false,
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
        // Consent is granted at once: the test signs in, it does not click "Authorize".
        loadExistingGrant: async (ctx: {
          oidc: { session: { accountId?: string }; client: { clientId: string }; provider: { Grant: new (init: object) => GrantLike } };
        }) => {
          const grant = new ctx.oidc.provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
          grant.addOIDCScope("openid profile email");
          await grant.save();
          return grant;
        },
        findAccount: (_ctx: unknown, sub: string) => {
          const user = users[sub];
          if (!user) return undefined;
          return { accountId: sub, claims: () => ({ sub, name: user.name, email: user.email, groups: user.groups }) };
        },
      });
      server.removeAllListeners("request");
      server.on("request", provider.callback());
    },
    async signInAs(authorizationUrl, login) {
      const jar = new Map<string, string>();
      const send = async (url: string, init: RequestInit = {}) => {
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
        const response = await fetch(url, {
          ...init,
          redirect: "manual",
          headers: { ...(init.headers as object), ...(cookie ? { cookie } : {}) },
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair = ""] = line.split(";");
          const index = pair.indexOf("=");
          jar.set(pair.slice(0, index).trim(), pair.slice(index + 1).trim());
        }
        await response.body?.cancel();
        return response;
      };
      let url = authorizationUrl;
      let submitted = false;
      for (let step = 0; step < 10; step += 1) {
        if (!url.startsWith(issuer)) return url;
        const interaction = /\/interaction\/([^/?#]+)$/.exec(new URL(url).pathname);
        const response =
          interaction && !submitted
            ? await send(url, {
                method: "POST",
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body: new URLSearchParams({ prompt: "login", login, password: "any" }).toString(),
              })
            : await send(url);
        if (interaction) submitted = true;
        const location = response.headers.get("location");
        if (!location) throw new Error(`the provider answered ${response.status} at ${url} with no redirect`);
        url = new URL(location, url).toString();
      }
      throw new Error("too many redirects at the provider");
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface GrantLike {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
