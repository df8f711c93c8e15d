import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OidcSsoServer, startOidcSsoServer } from "../testing/oidc-sso-server.js";
import { createOidcSignIn } from "./oidc-sign-in.js";

const REDIRECT = "http://127.0.0.1:9/console/api/sso/callback";

describe("createOidcSignIn against a real OpenID Provider (oidc-provider)", () => {
  let op: OidcSsoServer;
  beforeAll(async () => {
    op = await startOidcSsoServer({ alice: { name: "Alice", email: "alice@example.com", groups: ["platform", "all"] } });
    await op.configure({ redirectUris: [REDIRECT], postLogoutRedirectUris: ["http://127.0.0.1:9/console/"] });
  });
  afterAll(() => op.close());

  const client = () => createOidcSignIn({ issuer: op.issuer, clientId: op.client.id, clientSecret: op.client.secret });

  it("sends PKCE S256, state and nonce; the code comes back with the state; the ID token is verified with its claims", async () => {
    const signIn = client();
    const started = await signIn.start(REDIRECT);
    const url = new URL(started.url);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toBe(started.state);
    expect(url.searchParams.get("nonce")).toBe(started.nonce);
    expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT);
    const back = new URL(await op.signInAs(started.url, "alice"));
    expect(back.searchParams.get("state")).toBe(started.state);
    const code = back.searchParams.get("code") as string;
    const claims = await signIn.finish({ code, redirectUri: REDIRECT, verifier: started.verifier, nonce: started.nonce });
    expect(claims).toMatchObject({
      sub: "alice",
      iss: op.issuer,
      aud: op.client.id,
      groups: ["platform", "all"],
      email: "alice@example.com",
    });
  });

  it("refuses a code redeemed with another PKCE verifier, and an ID token whose nonce is not the one sent", async () => {
    const signIn = client();
    const first = await signIn.start(REDIRECT);
    const code = new URL(await op.signInAs(first.url, "alice")).searchParams.get("code") as string;
    await expect(signIn.finish({ code, redirectUri: REDIRECT, verifier: "x".repeat(43), nonce: first.nonce })).rejects.toThrow();
    const second = await signIn.start(REDIRECT);
    const secondCode = new URL(await op.signInAs(second.url, "alice")).searchParams.get("code") as string;
    await expect(signIn.finish({ code: secondCode, redirectUri: REDIRECT, verifier: second.verifier, nonce: first.nonce })).rejects.toThrow(
      /nonce/,
    );
  });

  it("an ID token from another issuer is refused", async () => {
    const other = await startOidcSsoServer({ alice: { name: "Alice", email: "a@example.com", groups: [] } });
    await other.configure({ redirectUris: [REDIRECT] });
    try {
      const started = await client().start(REDIRECT);
      // The other provider signs for its own issuer: a client of the first one must refuse what it issues.
      const forged = createOidcSignIn({
        issuer: other.issuer,
        clientId: op.client.id,
        clientSecret: op.client.secret,
        discoveryUrl: `${op.issuer}/.well-known/openid-configuration`,
      });
      await expect(forged.start(REDIRECT)).rejects.toThrow(/another issuer/);
      expect(started.url.startsWith(op.issuer)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("offers the provider's end-session endpoint with the client id and where to come back", async () => {
    const url = new URL((await client().endSessionUrl("http://127.0.0.1:9/console/")) as string);
    expect(url.origin).toBe(op.issuer);
    expect(url.searchParams.get("client_id")).toBe(op.client.id);
    expect(url.searchParams.get("post_logout_redirect_uri")).toBe("http://127.0.0.1:9/console/");
  });
});
