import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { CLIENT_KEY } from "@conduit-ai/proxy/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Loose, browserTools } from "./browser-tools.js";
import { ADMIN_KEY, startConsoleServer } from "./console-server.js";

/** Where the screenshots go (git-ignored); CONSOLE_SCREENSHOTS overrides. */
export const SCREENSHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? join(import.meta.dirname, "..", "browser-screenshots"));
const PAGES = ["overview", "accounts", "keys", "usage", "live", "health"] as const;

let server: Awaited<ReturnType<typeof startConsoleServer>>;
let browser: Loose;
let axeSource: string;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const tools = browserTools();
  axeSource = tools.axeSource;
  server = await startConsoleServer();
  const asRoot = process.getuid?.() === 0;
  browser = await tools.chromium.launch({ executablePath: tools.executablePath, headless: true, args: asRoot ? ["--no-sandbox"] : [] });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** A fresh browser context with its console errors, failed requests (other than expected ones) and page errors recorded. */
async function openPage(options: { allow401?: boolean } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message: Loose) => {
    if (message.type() !== "error") return;
    if (options.allow401 && /status of 401/.test(message.text())) return;
    errors.push(message.text());
  });
  page.on("pageerror", (error: Error) => errors.push(error.message));
  return { context, page, errors };
}

async function signIn(page: Loose, credential = ADMIN_KEY) {
  await page.goto(`${server.url}/console/`);
  await page.getByLabel("Admin key").fill(credential);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** axe-core in the page (evaluated by the driver, so the page's CSP stays on): serious and critical violations. */
async function seriousViolations(page: Loose): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => (globalThis as Loose).axe.run(document, { resultTypes: ["violations"] }));
  return results.violations
    .filter((violation: Loose) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation: Loose) => `${violation.id}: ${violation.nodes.map((node: Loose) => node.target.join(" ")).join(", ")}`);
}

describe("operator console in Chromium", () => {
  it("signed out: every page shows only the sign-in, and every page's data is refused", async () => {
    const { context, page, errors } = await openPage({ allow401: true });
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
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "sign-in.png") });
    await page.getByLabel("Admin key").fill("not-the-admin-key-not-the-admin-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("not valid");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("each page loads with no console error, shows what the API says, and has no serious accessibility violation", async () => {
    // Some traffic and pool state first, so the pages have something to show.
    const sdk = new Anthropic({ apiKey: CLIENT_KEY, baseURL: server.url, maxRetries: 0 });
    for (let index = 0; index < 3; index++)
      await sdk.messages.create({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "hello" }] });
    await server.proxy.pool.cooldown("backup", Date.now() + 125_000, "rate limited (429)");
    await server.proxy.pool.saveQuota("primary", { updatedAt: Date.now(), limits: { "unified-5h": { utilization: "0.42" } } });

    const { context, page, errors } = await openPage();
    await signIn(page);
    await page.locator("nav").waitFor();

    // Overview: figures from /api/metrics, refreshed live.
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="total-requests"]')?.textContent) >= 3);
    expect(await page.getByTestId("active-streams").textContent()).toMatch(/^\d+$/);
    expect(await page.getByTestId("p50").textContent()).toMatch(/ms|–/);
    await page.screenshot({ path: join(SCREENSHOTS, "overview.png") });
    expect(await seriousViolations(page)).toEqual([]);

    // Accounts: status, cooldown countdown, quota bar, tokens; disable and enable.
    await page.goto(`${server.url}/console/#/accounts`);
    const primary = page.getByTestId("account-primary");
    await primary.waitFor();
    expect(await primary.textContent()).toContain("active");
    expect(await page.getByTestId("account-backup").textContent()).toContain("cooling");
    // A countdown from the stored cooldown (≤ 2 min 5 s), ticking down each second.
    const countdown = async () => /^(\d) min (\d+) s/.exec((await page.getByTestId("cooldown-backup").textContent()) ?? "");
    const first = await countdown();
    expect(first).not.toBeNull();
    const seconds = (match: RegExpExecArray | null) => Number(match?.[1]) * 60 + Number(match?.[2]);
    expect(seconds(first)).toBeLessThanOrEqual(125);
    await page.waitForTimeout(2_100);
    expect(seconds(await countdown())).toBeLessThan(seconds(first));
    expect(await primary.locator("progress").getAttribute("value")).toBe("0.42");
    const rows = await server.proxy.pool.rows();
    expect(await primary.textContent()).toContain(String(rows.find((row) => row.id === "primary")?.usage.totals.requests));
    await page.screenshot({ path: join(SCREENSHOTS, "accounts.png") });
    expect(await seriousViolations(page)).toEqual([]);
    await primary.getByRole("button", { name: "Disable" }).click();
    await primary.getByRole("button", { name: "Enable" }).waitFor();
    expect((await server.proxy.pool.rows()).find((row) => row.id === "primary")?.status).toBe("disabled");
    await primary.getByRole("button", { name: "Enable" }).click();
    await primary.getByRole("button", { name: "Disable" }).waitFor();
    expect((await server.proxy.pool.rows()).find((row) => row.id === "primary")?.status).toBe("active");

    // Keys and teams: create (secret shown once), spend bars, rotate, revoke.
    await page.goto(`${server.url}/console/#/keys`);
    await page.getByLabel("Team name").fill("platform");
    await page.getByLabel("Monthly budget (USD)").fill("50");
    await page.getByRole("button", { name: "Create team" }).click();
    await page.getByTestId("team-platform").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("ci-bot");
    await page.locator('select[name="team"]').selectOption({ label: "platform" });
    await page.locator('input[name="budget"]').fill("10");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.getByTestId("new-secret").textContent()) as string;
    expect(secret).toMatch(/^sk-conduit-/);
    await page.screenshot({ path: join(SCREENSHOTS, "key-created.png") });
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Done" }).click();
    const keyRow = page.getByTestId("key-ci-bot");
    await keyRow.waitFor();
    expect(await keyRow.textContent()).toContain(secret.slice(-4));
    expect(await keyRow.textContent()).toContain("platform");
    expect(await keyRow.textContent()).toContain("$0.00 of $10.00");
    expect(await page.content()).not.toContain(secret);
    const created = [...server.admin.keys.values()].find((key) => key.name === "ci-bot");
    expect(created?.team).toBe([...server.admin.teams.values()][0]?.id);
    server.admin.setSpend(created?.id as string, 2.5);
    await page.reload();
    await page.getByText("$2.50 of $10.00").waitFor();
    expect(await page.getByTestId("key-ci-bot").locator("progress").getAttribute("value")).toBe("2.5");
    await page.screenshot({ path: join(SCREENSHOTS, "keys.png") });
    await page.getByTestId("key-ci-bot").getByRole("button", { name: "Rotate" }).click();
    const rotated = (await page.getByTestId("new-secret").textContent()) as string;
    expect(rotated).toMatch(/^sk-conduit-/);
    expect(rotated).not.toBe(secret);
    await page.getByRole("button", { name: "Done" }).click();
    page.once("dialog", (dialog: Loose) => dialog.accept());
    await page.getByTestId("key-ci-bot").getByRole("button", { name: "Revoke" }).click();
    await page.getByTestId("key-ci-bot").waitFor({ state: "detached" });
    expect(server.admin.keys.size).toBe(0);

    // Usage: the rows the admin API answers, and the CSV export.
    await page.goto(`${server.url}/console/#/usage`);
    await page.getByTestId("usage-claude-sonnet-4-5").waitFor();
    expect(await page.getByTestId("usage-claude-sonnet-4-5").textContent()).toContain("3,400");
    expect(await page.getByTestId("usage-gpt-5-mini").textContent()).toContain("$0.0011");
    const csvHref = (await page.getByRole("link", { name: "Export CSV" }).getAttribute("href")) as string;
    const csv = await page.request.get(new URL(csvHref, `${server.url}/console/`).toString());
    expect(csv.headers()["content-type"]).toContain("text/csv");
    expect((await csv.text()).split("\n")[0]).toBe("group,name,requests,inputTokens,outputTokens,cacheReadTokens,cacheWriteTokens,costUsd");
    await page.locator(".chart canvas").first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "usage.png") });
    expect(await seriousViolations(page)).toEqual([]);

    // Live requests: a proxied call appears as it finishes — never its content.
    await page.goto(`${server.url}/console/#/live`);
    await page.getByTestId("live-state").getByText("live").waitFor();
    await sdk.messages.create({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content: "a secret prompt" }] });
    await page.getByTestId("live-rows").getByText("POST /v1/messages").first().waitFor();
    expect(await page.getByTestId("live-rows").textContent()).not.toContain("a secret prompt");
    await page.screenshot({ path: join(SCREENSHOTS, "live.png") });
    expect(await seriousViolations(page)).toEqual([]);

    // Health: what /health/detailed's check says.
    await page.goto(`${server.url}/console/#/health`);
    await page.getByText("Dependencies, checked every 5 seconds").waitFor();
    await page.getByText(/Server\s*ok/).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "health.png") });
    expect(await seriousViolations(page)).toEqual([]);

    expect(errors).toEqual([]);

    // Sign out: the pages and their data are refused again.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin key").waitFor();
    expect((await page.request.get(`${server.url}/console/api/accounts`)).status()).toBe(401);
    await context.close();
  });
});
