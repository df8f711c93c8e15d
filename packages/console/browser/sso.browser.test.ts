import { join } from "node:path";
import { type OidcSsoServer, startOidcSsoServer } from "@conduit-ai/auth-providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Loose } from "./browser-tools.js";
import { SCREENSHOTS, openPage, seriousViolations, sendMessage, startBrowserAndServer } from "./browser-session.js";

// Single sign-on in Chromium through a real OpenID Provider (oidc-provider, on `localhost`: another
// site than the console on 127.0.0.1, as a company's identity provider is): groups mapped to roles,
// a team-admin who sees and manages only their team, a viewer who cannot write (hidden in the UI,
// refused by the API), an unmapped user refused with a page saying so, sign-out at both ends; and
// the charts fitted to their data.

const USERS = {
  alice: { name: "Alice", email: "alice@example.com", groups: ["platform"] },
  bob: { name: "Bob", email: "bob@example.com", groups: ["team-alpha"] },
  vera: { name: "Vera", email: "vera@example.com", groups: ["readers"] },
  eve: { name: "Eve", email: "eve@example.com", groups: ["marketing"] },
};

let op: OidcSsoServer;
let setup: Awaited<ReturnType<typeof startBrowserAndServer>>;
let betaKey: string;
beforeAll(async () => {
  op = await startOidcSsoServer(USERS);
  setup = await startBrowserAndServer({
    auth: { providers: { corp: { type: "oidc", issuer: op.issuer, clientId: op.client.id, clientSecret: op.client.secret } } },
    console: {
      sso: { provider: "corp", rolesClaim: "groups", roleMap: { platform: "admin", "team-alpha": "team-admin:alpha", readers: "viewer" } },
    },
  });
  const { server } = setup;
  await op.configure({ redirectUris: [`${server.url}/console/api/sso/callback`], postLogoutRedirectUris: [`${server.url}/console/`] });
  await server.admin("/admin/teams", { method: "POST", body: { id: "alpha", name: "Alpha" } });
  await server.admin("/admin/teams", { method: "POST", body: { id: "beta", name: "Beta" } });
  await server.admin("/admin/keys", { method: "POST", body: { name: "alpha-key", team: "alpha" } });
  betaKey = (await server.admin<{ id: string }>("/admin/keys", { method: "POST", body: { name: "beta-key", team: "beta" } })).id;
});
afterAll(async () => {
  await setup?.stop();
  await op?.close();
});

/** Through the sign-in page's "Sign in with corp", the provider's own login page, and back. */
async function ssoSignIn(page: Loose, login: string) {
  await page.goto(`${setup.server.url}/console/`);
  await page.getByRole("link", { name: "Sign in with corp" }).click();
  await page.waitForURL(new RegExp(`^${op.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
}

describe("console single sign-on in Chromium", () => {
  it("a team-admin signs in, sees and manages only their team's keys; another team's key id is a 404", async () => {
    const { server, browser, axeSource } = setup;
    const { context, page, errors } = await openPage(browser, { allow401: true });
    await ssoSignIn(page, "bob");
    await page.locator("nav").waitFor();
    expect(page.url()).toBe(`${server.url}/console/`);
    expect(await page.getByTestId("signed-in-as").textContent()).toBe("bob@example.com · team-admin:alpha");
    // The pages a team-admin has: keys, usage, audit; not the server-wide ones.
    expect(await page.locator("nav a").allTextContents()).toEqual(["Keys and teams", "Usage", "Audit"]);
    await page.goto(`${server.url}/console/#/keys`);
    await page.getByTestId("key-alpha-key").waitFor();
    expect(await page.getByTestId("key-beta-key").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Create team" }).count()).toBe(0);
    await page.getByLabel("Name", { exact: true }).fill("bob-bot");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByTestId("new-secret").waitFor();
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByTestId("key-bob-bot").waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "sso-team-admin-keys.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);
    const keys = await server.admin<Array<{ name: string; team?: string }>>("/admin/keys");
    expect(keys.find((key) => key.name === "bob-bot")?.team).toBe("alpha");
    const other = await page.request.get(`${server.url}/console/api/admin/keys/${betaKey}`);
    expect(other.status()).toBe(404);
    const revoke = await page.request.delete(`${server.url}/console/api/admin/keys/${betaKey}`, {
      headers: { "sec-fetch-site": "same-origin", origin: server.url },
    });
    expect(revoke.status()).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a viewer sees keys without any way to change them, and the API refuses a write (403)", async () => {
    const { server, browser } = setup;
    const { context, page, errors } = await openPage(browser);
    await ssoSignIn(page, "vera");
    await page.locator("nav").waitFor();
    expect(await page.getByTestId("signed-in-as").textContent()).toBe("vera@example.com · viewer");
    await page.goto(`${server.url}/console/#/keys`);
    await page.getByTestId("key-beta-key").waitFor();
    for (const name of ["Create key", "Create team", "Rotate", "Revoke"])
      expect(await page.getByRole("button", { name }).count(), name).toBe(0);
    const write = await page.request.post(`${server.url}/console/api/admin/keys`, {
      headers: { "sec-fetch-site": "same-origin", origin: server.url },
      data: { name: "viewer-key" },
    });
    expect(write.status()).toBe(403);
    expect(((await write.json()) as Loose).error.code).toBe("ADMIN_ROLE_FORBIDDEN");
    await page.screenshot({ path: join(SCREENSHOTS, "sso-viewer-keys.png") });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a user whose groups map to no role is refused with a page that says so, and has no session", async () => {
    const { server, browser } = setup;
    const { context, page } = await openPage(browser);
    await ssoSignIn(page, "eve");
    await page.getByRole("heading", { name: "No console role for this account" }).waitFor();
    expect(await page.textContent("body")).toContain("eve@example.com");
    await page.screenshot({ path: join(SCREENSHOTS, "sso-unmapped.png") });
    const session = await page.request.get(`${server.url}/console/api/session`);
    expect(((await session.json()) as Loose).data.signedIn).toBe(false);
    await context.close();
  });

  it("an admin signs in, the charts fit their data, the Audit page lists what happened; sign-out ends both sessions", async () => {
    const { server, browser, axeSource } = setup;
    // One day of usage: a key and one proxied call.
    const created = await server.admin<{ key: string }>("/admin/keys", { method: "POST", body: { name: "chart-key" } });
    expect((await sendMessage(server.url, created.key)).status).toBe(200);
    const { context, page, errors } = await openPage(browser);
    await ssoSignIn(page, "alice");
    await page.locator("nav").waitFor();
    expect(await page.getByTestId("signed-in-as").textContent()).toBe("alice@example.com · admin");

    // Overview: a live chart labelled with clock times (never `:04.700`).
    const live = page.locator('.chart[data-axis="clock"]');
    await page.waitForFunction(() => (document.querySelector('.chart[data-axis="clock"]') as HTMLElement | null)?.dataset.xLabels);
    const clockLabels = ((await live.getAttribute("data-x-labels")) as string).split(",");
    expect(
      clockLabels.every((label) => /^\d{2}:\d{2}:\d{2}$/.test(label)),
      clockLabels.join(" "),
    ).toBe(true);

    // Usage over one day: the chart spans about a day and is labelled with dates.
    await page.goto(`${server.url}/console/#/usage`);
    await page.locator('select[name="days"]').selectOption("1");
    // The 30-day chart drawn before the choice is labelled too: wait for the one drawn for a day (a chart
    // that never fits its day fails here, by the timeout).
    await page.waitForFunction(() => {
      const chart = (document.querySelector('.chart[data-axis="day"]') as HTMLElement | null)?.dataset;
      return chart?.xLabels !== undefined && Number(chart.xMax) - Number(chart.xMin) <= 2 * 86_400;
    });
    const usage = page.locator('.chart[data-axis="day"]');
    const span = Number(await usage.getAttribute("data-x-max")) - Number(await usage.getAttribute("data-x-min"));
    expect(span).toBeGreaterThan(0);
    expect(span).toBeLessThanOrEqual(2 * 86_400);
    const dayLabels = ((await usage.getAttribute("data-x-labels")) as string).split(",");
    expect(
      dayLabels.every((label) => /^[A-Z][a-z]{2} \d{1,2}$/.test(label)),
      dayLabels.join(" "),
    ).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, "sso-usage-one-day.png") });

    // Audit: bob's key, with the filters.
    await page.goto(`${server.url}/console/#/audit`);
    await page.getByLabel("Action").fill("key.create");
    await page.getByRole("button", { name: "Filter" }).click();
    const rows = page.locator('[data-testid="audit-key.create"]');
    // Filtered: key creations only (the sign-ins before it are gone from the list).
    await page.waitForFunction(
      () =>
        document.querySelectorAll('[data-testid="audit-key.create"]').length >= 4 &&
        document.querySelectorAll('[data-testid="audit-console.signin"]').length === 0,
    );
    expect(
      (await rows.allTextContents()).some((text: string) => text.includes("bob@example.com") && text.includes("team-admin:alpha")),
    ).toBe(true);
    expect(await page.locator('[data-testid="audit-console.signin"]').count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, "sso-audit.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);

    // Sign-out: the console's session ends, and the provider's own is offered.
    await page.getByRole("button", { name: "Sign out" }).click();
    const providerSignOut = page.getByRole("link", { name: "Sign out of corp too" });
    await providerSignOut.waitFor();
    expect((await page.request.get(`${server.url}/console/api/admin/keys`)).status()).toBe(401);
    await providerSignOut.click();
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.waitForURL(`${server.url}/console/`);
    await page.getByRole("link", { name: "Sign in with corp" }).waitFor();
    // Signed out at the provider too: signing in again asks for the login.
    await page.getByRole("link", { name: "Sign in with corp" }).click();
    await page.waitForURL(new RegExp(`^${op.issuer}/interaction/`));
    await page.locator('input[name="login"]').waitFor();
    expect(errors.filter((error) => !/status of 401/.test(error))).toEqual([]);
    await context.close();
  });
});
