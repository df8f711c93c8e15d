import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Loose, browserTools } from "./browser-tools.js";
import { ADMIN_KEY, startConsoleServer } from "./console-server.js";

/** Where the screenshots go (git-ignored); CONSOLE_SCREENSHOTS overrides. */
export const SCREENSHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? join(import.meta.dirname, "..", "browser-screenshots"));

export type ConsoleServer = Awaited<ReturnType<typeof startConsoleServer>>;

/** Chromium (headless, no sandbox as root) and a real server, for one test file. */
export async function startBrowserAndServer(extraConfig: Record<string, unknown> = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const tools = browserTools();
  const server = await startConsoleServer(extraConfig);
  const asRoot = process.getuid?.() === 0;
  const browser: Loose = await tools.chromium.launch({
    executablePath: tools.executablePath,
    headless: true,
    args: asRoot ? ["--no-sandbox"] : [],
  });
  return {
    server,
    browser,
    axeSource: tools.axeSource,
    stop: async () => {
      await browser.close();
      await server.stop();
    },
  };
}

/** A fresh browser context with its console errors and page errors recorded (401s only when expected). */
export async function openPage(browser: Loose, options: { allow401?: boolean } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Only loopback: a page of the test identity provider links web fonts that must never be fetched.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (route: Loose) => route.fulfill({ status: 204, body: "" }));
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

export async function signIn(page: Loose, url: string, credential = ADMIN_KEY) {
  await page.goto(`${url}/console/`);
  await page.getByLabel("Admin key").fill(credential);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("nav").waitFor();
}

/** axe-core in the page (evaluated by the driver, so the page's CSP stays on): serious and critical violations. */
export async function seriousViolations(page: Loose, axeSource: string): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => (globalThis as Loose).axe.run(document, { resultTypes: ["violations"] }));
  return results.violations
    .filter((violation: Loose) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation: Loose) => `${violation.id}: ${violation.nodes.map((node: Loose) => node.target.join(" ")).join(", ")}`);
}

/** A proxied Anthropic Messages call with a client key, as any client of the gateway sends it. */
export async function sendMessage(url: string, apiKey: string, content = "hello") {
  const response = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 8, messages: [{ role: "user", content }] }),
  });
  return { status: response.status, requestId: response.headers.get("x-request-id"), body: (await response.json()) as Loose };
}

/** The console's money format (app/src/api.ts), to compare a page with the admin API's figures. */
export const formatUsd = (value: number | undefined) =>
  `$${(value ?? 0).toFixed(value !== undefined && value > 0 && value < 0.01 ? 4 : 2)}`;
