import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Loose } from "./browser-tools.js";
import { SCREENSHOTS, openPage, seriousViolations, sendMessage, signIn, startBrowserAndServer } from "./browser-session.js";

const PAGES = ["overview", "accounts", "keys", "usage", "live", "health"] as const;

let setup: Awaited<ReturnType<typeof startBrowserAndServer>>;
beforeAll(async () => {
  setup = await startBrowserAndServer();
});
afterAll(async () => {
  await setup?.stop();
});

interface AccountRow {
  id: string;
  status: string;
  usage: { totals: { requests: number } };
}

describe("operator console in Chromium, on a real conduit proxy", () => {
  it("signed out: every page shows only the sign-in, and every page's data is refused", async () => {
    const { server, browser, axeSource } = setup;
    const { context, page, errors } = await openPage(browser, { allow401: true });
    for (const id of PAGES) {
      await page.goto(`${server.url}/console/#/${id}`);
      await page.getByLabel("Admin key").waitFor();
      expect(await page.locator("nav").count()).toBe(0);
    }
    expect(await (await page.request.get(`${server.url}/console/api/session`)).json()).toMatchObject({ data: { signedIn: false } });
    for (const path of ["metrics", "accounts", "health", "admin/keys", "admin/teams", "admin/usage?groupBy=day", "live"]) {
      const response = await page.request.get(`${server.url}/console/api/${path}`);
      expect(response.status(), path).toBe(401);
    }
    // The admin API itself, without its credential.
    expect((await page.request.get(`${server.url}/admin/keys`)).status()).toBe(401);
    expect(await seriousViolations(page, axeSource)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "sign-in.png") });
    await page.getByLabel("Admin key").fill("not-the-admin-key-not-the-admin-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("not valid");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("each page loads with no console error, shows what the server's APIs say, and has no serious accessibility violation", async () => {
    const { server, browser, axeSource } = setup;
    // Traffic through a virtual key made with the real admin API; the first call meets a 429 on
    // the primary account, so the proxy cools it down and fails over to the backup.
    const traffic = await server.admin<{ id: string; key: string }>("/admin/keys", { method: "POST", body: { name: "traffic" } });
    server.fake.script("sk-primary", {
      status: 429,
      headers: { "retry-after": "125" },
      body: JSON.stringify({
        type: "error",
        error: { type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" },
      }),
    });
    for (let index = 0; index < 3; index++) expect((await sendMessage(server.url, traffic.key)).status).toBe(200);

    const { context, page, errors } = await openPage(browser);
    const pageAnswer = page.waitForResponse((response: Loose) => new URL(response.url()).pathname === "/console/");
    await signIn(page, server.url);
    // The security the console keeps on the real server: a strict CSP, an HttpOnly SameSite=Strict cookie, no cross-site writes.
    const csp = (await pageAnswer).headers()["content-security-policy"] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: "conduit_console", httpOnly: true, sameSite: "Strict", path: "/console" });
    const crossSite = await page.request.post(`${server.url}/console/api/accounts/backup/disable`, {
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status()).toBe(403);
    const consoleApi = async <T>(path: string) =>
      ((await (await page.request.get(`${server.url}/console/api/${path}`)).json()) as { data: T }).data;

    // Overview: figures from the server's metrics, refreshed live.
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="total-requests"]')?.textContent) >= 3);
    expect(await page.getByTestId("active-streams").textContent()).toMatch(/^\d+$/);
    expect(await page.getByTestId("p50").textContent()).toMatch(/ms|–/);
    await page.screenshot({ path: join(SCREENSHOTS, "overview.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);

    // Accounts: the proxy pool's rows — status, cooldown countdown, the quota upstream reported, requests.
    await page.goto(`${server.url}/console/#/accounts`);
    const primary = page.getByTestId("account-primary");
    const backup = page.getByTestId("account-backup");
    await primary.waitFor();
    expect(await primary.textContent()).toContain("cooling");
    expect(await backup.textContent()).toContain("active");
    const countdown = async () => /^(\d) min (\d+) s/.exec((await page.getByTestId("cooldown-primary").textContent()) ?? "");
    const seconds = (match: RegExpExecArray | null) => Number(match?.[1]) * 60 + Number(match?.[2]);
    const first = await countdown();
    expect(first).not.toBeNull();
    expect(seconds(first)).toBeLessThanOrEqual(125);
    await page.waitForTimeout(2_100);
    expect(seconds(await countdown())).toBeLessThan(seconds(first));
    // The fake answers `anthropic-ratelimit-unified-5h-utilization: 0.25`.
    expect(await backup.locator('progress[aria-label="backup unified-5h used"]').getAttribute("value")).toBe("0.25");
    const rows = await consoleApi<{ accounts: AccountRow[] }>("accounts");
    expect(await backup.textContent()).toContain(String(rows.accounts.find((row) => row.id === "backup")?.usage.totals.requests));
    await page.screenshot({ path: join(SCREENSHOTS, "accounts.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);
    const statusOf = async (id: string) =>
      (await consoleApi<{ accounts: AccountRow[] }>("accounts")).accounts.find((row) => row.id === id)?.status;
    await backup.getByRole("button", { name: "Disable" }).click();
    await backup.getByRole("button", { name: "Enable" }).waitFor();
    expect(await statusOf("backup")).toBe("disabled");
    await backup.getByRole("button", { name: "Enable" }).click();
    await backup.getByRole("button", { name: "Disable" }).waitFor();
    expect(await statusOf("backup")).toBe("active");

    // Usage: the rows governance's /admin/usage answers, by model and by key, and the CSV export.
    const byModel = await server.admin<Array<{ group: string; requests: number; inputTokens: number }>>("/admin/usage?groupBy=model");
    const sonnet = byModel.find((row) => row.group === "claude-sonnet-4-5");
    expect(sonnet?.requests).toBe(3);
    await page.goto(`${server.url}/console/#/usage`);
    const sonnetRow = page.getByTestId("usage-claude-sonnet-4-5");
    await sonnetRow.waitFor();
    const sonnetCells = await sonnetRow.locator("td").allTextContents();
    expect(sonnetCells.slice(1, 3)).toEqual([String(sonnet?.requests), sonnet?.inputTokens.toLocaleString("en-US")]);
    // The savings of the prompt cache, as /admin/usage reports them: hit ratio and dollars saved.
    const sonnetSavings = byModel.find((row) => row.group === "claude-sonnet-4-5") as unknown as {
      cacheHitRatio: number;
      savedUsd: number;
    };
    expect(sonnetCells[5]).toBe(`${(sonnetSavings.cacheHitRatio * 100).toFixed(1)} %`);
    expect(sonnetCells[6]).toMatch(/^\$\d+\.\d{2,4}$/);
    expect(await page.getByTestId("usage-savings").textContent()).toContain("Prompt cache saved $");
    await page.locator('select[name="group-by"]').selectOption("key");
    await page.getByTestId(`usage-${traffic.id}`).waitFor();
    expect(await page.getByTestId(`usage-${traffic.id}`).textContent()).toContain("traffic");
    const csvHref = (await page.getByRole("link", { name: "Export CSV" }).getAttribute("href")) as string;
    const csv = await page.request.get(new URL(csvHref, `${server.url}/console/`).toString());
    expect(csv.headers()["content-type"]).toContain("text/csv");
    const [header, ...lines] = (await csv.text()).trim().split("\n");
    expect(header).toContain("group");
    expect(lines.some((line: string) => line.includes(traffic.id))).toBe(true);
    await page.locator(".chart canvas").first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "usage.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);

    // Health: what the server's readiness check says.
    await page.goto(`${server.url}/console/#/health`);
    await page.getByText("Dependencies, checked every 5 seconds").waitFor();
    await page.getByText(/Server\s*ok/).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "health.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);

    expect(errors).toEqual([]);

    // Sign out: the pages and their data are refused again.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin key").waitFor();
    expect((await page.request.get(`${server.url}/console/api/accounts`)).status()).toBe(401);
    await context.close();
  });
});
