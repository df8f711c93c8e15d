import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCREENSHOTS, openPage, seriousViolations, sendMessage, signIn, startBrowserAndServer } from "./browser-session.js";

/** The operator's guardrails: emails in prompts masked before they go upstream, for every key. */
const GUARDRAILS = {
  guardrails: {
    rules: [{ name: "mask-emails", kind: "pii", entities: ["email"], on: "request", action: "mask" }],
    default: ["mask-emails"],
  },
};

let setup: Awaited<ReturnType<typeof startBrowserAndServer>>;
beforeAll(async () => {
  setup = await startBrowserAndServer(GUARDRAILS);
});
afterAll(async () => {
  await setup?.stop();
});

describe("a guardrail hit on the console's Live page", () => {
  it("a proxied call that trips a mask rule shows the rule's name in its row's Guardrails cell, never the masked text", async () => {
    const { server, browser, axeSource } = setup;
    const { context, page, errors } = await openPage(browser);
    await signIn(page, server.url);
    const { key } = await server.admin<{ key: string }>("/admin/keys", { method: "POST", body: { name: "masked-bot" } });

    await page.goto(`${server.url}/console/#/live`);
    await page.getByTestId("live-state").getByText("live").waitFor();
    const clean = await sendMessage(server.url, key, "nothing personal here");
    const masked = await sendMessage(server.url, key, "write to grace.hopper@example.com today");
    expect([clean.status, masked.status]).toEqual([200, 200]);
    // What went upstream is the masked prompt: the rule really applied.
    expect(JSON.stringify(server.fake.requests.at(-1)?.body)).toContain("write to [EMAIL] today");

    const cell = page.getByTestId(`live-guardrails-${masked.requestId}`);
    await cell.getByText("mask-emails", { exact: false }).waitFor();
    expect(await cell.textContent()).toMatch(/^mask-emails masked email \(request\)$/);
    expect(await cell.locator(".guardrail-hit.guardrail-mask").count()).toBe(1);
    // The call the rule left alone shows no hit.
    expect(await page.getByTestId(`live-guardrails-${clean.requestId}`).textContent()).toBe("–");
    expect(await page.content()).not.toContain("grace.hopper@example.com");
    await page.screenshot({ path: join(SCREENSHOTS, "live-guardrails.png") });
    expect(await seriousViolations(page, axeSource)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
