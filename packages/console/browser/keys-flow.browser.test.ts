import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Loose } from "./browser-tools.js";
import { SCREENSHOTS, formatUsd, openPage, seriousViolations, sendMessage, signIn, startBrowserAndServer } from "./browser-session.js";

let setup: Awaited<ReturnType<typeof startBrowserAndServer>>;
beforeAll(async () => {
  setup = await startBrowserAndServer();
});
afterAll(async () => {
  await setup?.stop();
});

interface KeyDetail {
  id: string;
  name: string;
  team?: string;
  spend: Array<{ window: string; usd: number; spentUsd: number }>;
}

/** The text a created or rotated key's secret is shown in, once; then the dialog is closed. */
async function takeSecret(page: Loose): Promise<string> {
  const secret = (await page.getByTestId("new-secret").textContent()) as string;
  await page.getByRole("button", { name: "Done" }).click();
  // The dialog leaves on the next render: wait for it, so what follows sees the page without it.
  await page.getByTestId("new-secret").waitFor({ state: "detached" });
  return secret;
}

describe("keys in the console, end to end through the real admin API and proxy", () => {
  it("a key created in the console authenticates a proxied call, shows in the live feed and its spend, and is refused once revoked", async () => {
    const { server, browser, axeSource } = setup;
    const { context, page, errors } = await openPage(browser);
    await signIn(page, server.url);
    await page.goto(`${server.url}/console/#/keys`);

    // A team, then a key in it with a monthly budget: the secret is shown once.
    await page.getByLabel("Team name").fill("platform");
    await page.getByLabel("Monthly budget (USD)").fill("50");
    await page.getByRole("button", { name: "Create team" }).click();
    await page.getByTestId("team-platform").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("ci-bot");
    await page.locator('select[name="team"]').selectOption({ label: "platform" });
    await page.locator('input[name="budget"]').fill("10");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByTestId("new-secret").waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "key-created.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);
    const secret = await takeSecret(page);
    expect(secret).toMatch(/^sk-conduit-/);
    const keyRow = page.getByTestId("key-ci-bot");
    await keyRow.waitFor();
    expect(await keyRow.textContent()).toContain(secret.slice(-4));
    expect(await keyRow.textContent()).toContain("$0.00 of $10.00");
    expect(await page.content()).not.toContain(secret);

    // What the admin API holds: the key, in the team, without its secret.
    const listed = await server.admin<KeyDetail[]>("/admin/keys");
    const created = listed.find((key) => key.name === "ci-bot") as KeyDetail;
    const teams = await server.admin<Array<{ id: string; name: string }>>("/admin/teams");
    expect(created.team).toBe(teams.find((team) => team.name === "platform")?.id);
    expect(JSON.stringify(listed)).not.toContain(secret);

    // The new key authenticates a proxied Messages call through the same server.
    const answered = await sendMessage(server.url, secret);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ type: "message", content: [{ type: "text", text: "Hello from the fake — ünïcödé ✓ 🚀" }] });

    // A virtual key is no admin credential: governance's admin check refuses it, in the console as in /admin.
    const asAdmin = await page.request.post(`${server.url}/console/api/session`, {
      headers: { "sec-fetch-site": "same-origin", origin: server.url },
      data: { credential: secret },
    });
    expect(asAdmin.status()).toBe(401);
    expect((await page.request.get(`${server.url}/admin/keys`, { headers: { authorization: `Bearer ${secret}` } })).status()).toBe(403);

    // Its spend on the Keys page is the admin API's figure.
    const detail = await server.admin<KeyDetail>(`/admin/keys/${created.id}`);
    const spent = detail.spend.find((entry) => entry.window === "month")?.spentUsd as number;
    expect(spent).toBeGreaterThan(0);
    await page.reload();
    await page
      .getByTestId("key-ci-bot")
      .getByText(`${formatUsd(spent)} of $10.00`)
      .waitFor();
    expect(await page.getByTestId("key-ci-bot").locator("progress").getAttribute("value")).toBe(String(spent));
    await page.screenshot({ path: join(SCREENSHOTS, "keys.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);

    // Live requests: the call appears with its key's name, model, status, latency and tokens — no content, no secret.
    await page.goto(`${server.url}/console/#/live`);
    await page.getByTestId("live-state").getByText("live").waitFor();
    const live = await sendMessage(server.url, secret, "a secret prompt");
    expect(live.status).toBe(200);
    const liveRow = page.getByTestId(`live-${live.requestId}`);
    await liveRow.waitFor();
    const cells = await liveRow.locator("td").allTextContents();
    expect(cells.slice(1)).toEqual([
      "POST /v1/messages",
      "ci-bot",
      "claude-sonnet-4-5",
      "200",
      expect.stringMatching(/^\d+(\.\d+)? ms$/),
      `${live.body.usage.input_tokens} / ${live.body.usage.output_tokens}`,
      // Guardrails: no rule applies to this call, so no hit.
      "–",
    ]);
    expect(await liveRow.locator("td").nth(2).getAttribute("title")).toBe(created.id);
    const content = await page.content();
    for (const hidden of [secret, "a secret prompt", "Hello from the fake"]) expect(content).not.toContain(hidden);
    await page.screenshot({ path: join(SCREENSHOTS, "live.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);

    // Revoked in the console: the same call is now a 401 in Anthropic's error shape.
    await page.goto(`${server.url}/console/#/keys`);
    await page.getByTestId("key-ci-bot").waitFor();
    page.once("dialog", (dialog: Loose) => dialog.accept());
    await page.getByTestId("key-ci-bot").getByRole("button", { name: "Revoke" }).click();
    await page.getByTestId("key-ci-bot").waitFor({ state: "detached" });
    expect((await server.admin<KeyDetail[]>("/admin/keys")).some((key) => key.id === created.id)).toBe(false);
    const refused = await sendMessage(server.url, secret);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ type: "error", error: { type: "authentication_error", message: expect.any(String) } });

    expect(errors).toEqual([]);
    await context.close();
  });

  it("rotating a key in the console: the new secret works at once, the old one for the console's 5-minute grace", async () => {
    const { server, browser } = setup;
    const { context, page, errors } = await openPage(browser);
    await signIn(page, server.url);
    await page.goto(`${server.url}/console/#/keys`);
    await page.getByLabel("Name", { exact: true }).fill("rotating-bot");
    await page.getByRole("button", { name: "Create key" }).click();
    const first = await takeSecret(page);
    expect((await sendMessage(server.url, first)).status).toBe(200);
    await page.getByTestId("key-rotating-bot").getByRole("button", { name: "Rotate" }).click();
    const rotated = await takeSecret(page);
    expect(rotated).toMatch(/^sk-conduit-/);
    expect(rotated).not.toBe(first);
    await page.getByTestId("key-rotating-bot").getByText(rotated.slice(-4)).waitFor();
    expect((await sendMessage(server.url, rotated)).status).toBe(200);
    expect((await sendMessage(server.url, first)).status).toBe(200);
    const listed = await server.admin<Array<{ name: string; hint: string }>>("/admin/keys");
    expect(listed.find((key) => key.name === "rotating-bot")?.hint).toBe(rotated.slice(-4));
    expect(errors).toEqual([]);
    await context.close();
  });
});
