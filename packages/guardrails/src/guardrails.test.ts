import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GuardrailConfigError } from "./guardrail-errors.js";
import { GuardrailViolation } from "./guardrail-violation.js";
import { createGuardrails, resolveRuleNames } from "./guardrails.js";

describe("config", () => {
  it("refuses a pattern that can backtrack catastrophically, naming its key path", () => {
    const config = { rules: [{ name: "r", kind: "regex", patterns: ["ok", "(a+)+$"] }] };
    expect(() => createGuardrails(config as never)).toThrow(GuardrailConfigError);
    try {
      createGuardrails(config as never);
    } catch (error) {
      expect((error as GuardrailConfigError).problems).toEqual([
        { path: "guardrails.rules.0.patterns.1", message: expect.stringContaining("backtrack") },
      ]);
    }
  });

  it("refuses unknown kinds, entities, fields and default names with their paths", () => {
    const paths = (input: unknown) => {
      try {
        createGuardrails(input as never);
        return [];
      } catch (error) {
        return (error as GuardrailConfigError).problems.map((problem) => problem.path);
      }
    };
    expect(paths({ rules: [{ name: "p", kind: "pii", entities: ["passport"] }] })).toEqual(["guardrails.rules.0.entities.0"]);
    expect(paths({ rules: [{ name: "p", kind: "pii", colour: "red" }] })).toEqual(["guardrails.rules.0"]);
    expect(paths({ rules: [{ name: "p", kind: "magic" }] })).toEqual(["guardrails.rules.0.kind"]);
    expect(paths({ rules: [], default: ["nope"] })).toEqual(["guardrails.default.0"]);
    expect(paths({ rules: [{ name: "w", kind: "webhook", url: "ftp://x" }] })).toEqual(["guardrails.rules.0.url"]);
  });

  it("masks with a regex rule's mask text", async () => {
    const set = createGuardrails({
      rules: [{ name: "ticket", kind: "regex", patterns: ["PRJ-\\d{4}"], mask: "[TICKET]", action: "mask" }],
      default: ["ticket"],
    }).select();
    const body = { messages: [{ role: "user", content: "see PRJ-1234" }] };
    const outcome = await set?.checkJson("request", body);
    expect(body.messages[0]?.content).toBe("see [TICKET]");
    expect(outcome).toMatchObject({ changed: true, hits: [{ guardrail: "ticket", entity: "ticket", action: "mask" }] });
  });
});

describe("per key and team lists", () => {
  it("adds names to the defaults and removes `!name`s, team first then key", () => {
    expect(resolveRuleNames(["pii"], [["secrets"], ["!pii"]])).toEqual(["secrets"]);
    expect(resolveRuleNames(["pii"], [["!pii"], ["pii"]])).toEqual(["pii"]);
    expect(resolveRuleNames([], [undefined, undefined])).toEqual([]);
  });

  it("gives a call naming no list of its own the defaults' set, the same as when they are named", () => {
    const guardrails = createGuardrails({
      rules: [
        { name: "pii", kind: "pii" },
        { name: "secrets", kind: "secrets" },
      ],
      default: ["pii"],
    });
    const defaults = guardrails.select();
    expect(defaults?.names).toEqual(["pii"]);
    for (const lists of [[], [undefined], [[]], [undefined, []]]) expect(guardrails.select(lists)).toBe(defaults);
    expect(guardrails.select([["pii"]])).toBe(defaults);
    expect(guardrails.select([["secrets"]])?.names).toEqual(["pii", "secrets"]);
    expect(createGuardrails({ rules: [{ name: "pii", kind: "pii" }], default: [] }).select()).toBeUndefined();
  });

  it("selects nothing when no rule applies, and blocks a name the config lacks", async () => {
    const guardrails = createGuardrails({ rules: [{ name: "pii", kind: "pii" }], default: ["pii"] });
    expect(guardrails.select([["!pii"]])).toBeUndefined();
    const outcome = await guardrails.select([["strict"]])?.checkJson("request", { text: "hello" });
    expect(outcome?.block).toMatchObject({ guardrail: "strict", entity: "not-configured" });
  });

  it("blocks with a message naming the guardrail and entity, never the text", async () => {
    const set = createGuardrails({ rules: [{ name: "no-secrets", kind: "secrets" }], default: ["no-secrets"] }).select();
    const outcome = await set?.checkJson("request", { messages: [{ content: "AKIAIOSFODNN7EXAMPLE" }] });
    const violation = new GuardrailViolation(outcome?.block as never);
    expect(violation.message).toBe("Blocked by guardrail `no-secrets` (aws-access-key): the request was not sent.");
    expect(violation).toMatchObject({ statusCode: 400, code: "guardrail_violation" });
  });

  it("skips ids, roles and images (base64) but checks tool arguments and results", async () => {
    const set = createGuardrails({ rules: [{ name: "pii", kind: "pii", action: "mask" }], default: ["pii"] }).select();
    const body = {
      model: "a@b.co",
      messages: [
        { role: "user", content: [{ type: "image", source: { type: "base64", data: "ada@example.com" } }] },
        { role: "assistant", content: [{ type: "tool_use", id: "x@y.io", input: { to: "ada@example.com" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "sent to ada@example.com" }] },
      ],
    };
    await set?.checkJson("request", body);
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        model: "a@b.co",
        messages: [
          { role: "user", content: [{ type: "image", source: { type: "base64", data: "ada@example.com" } }] },
          { role: "assistant", content: [{ type: "tool_use", id: "x@y.io", input: { to: "[EMAIL]" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "sent to [EMAIL]" }] },
        ],
      }),
    );
  });
});

describe("size", () => {
  it("blocks a request over maxInputTokens (about four characters a token)", async () => {
    const set = createGuardrails({ rules: [{ name: "small", kind: "size", maxInputTokens: 10 }], default: ["small"] }).select();
    expect((await set?.checkJson("request", { text: "x".repeat(40) }))?.block).toBeUndefined();
    expect((await set?.checkJson("request", { text: "x".repeat(41) }))?.block).toMatchObject({ entity: "max-input-tokens" });
    expect(set?.outputLimit()).toBeUndefined();
  });
});

describe("webhook", () => {
  let server: Server;
  let url: string;
  const seen: unknown[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const parsed = JSON.parse(body);
        seen.push(parsed);
        if (request.url === "/slow") return void setTimeout(() => response.end('{"action":"allow"}'), 500);
        const verdict = parsed.text.includes("forbidden")
          ? { action: "block", reason: "off-topic" }
          : parsed.text.includes("rewrite")
            ? { action: "mask", texts: parsed.texts.map((text: string) => text.replace("rewrite", "[X]")) }
            : { action: "allow" };
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify(verdict));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const setOf = (path: string, extra: Record<string, unknown> = {}) =>
    createGuardrails({
      rules: [{ name: "mod", kind: "webhook", url: `${url}${path}`, timeoutMs: 5_000, action: "mask", ...extra }],
      default: ["mod"],
    }).select();

  it("sends direction, text, key, team, model and surface; allows, blocks with its reason, masks", async () => {
    const context = { key: "key_1", team: "t", model: "m", surface: "anthropic" };
    expect((await setOf("/")?.checkJson("request", { text: "fine" }, context))?.block).toBeUndefined();
    expect(seen.at(-1)).toEqual({
      direction: "request",
      text: "fine",
      texts: ["fine"],
      key: "key_1",
      team: "t",
      model: "m",
      surface: "anthropic",
    });
    const blocked = await setOf("/")?.checkJson("request", { text: "forbidden" }, context);
    expect(new GuardrailViolation(blocked?.block as never).message).toBe(
      "Blocked by guardrail `mod`: off-topic: the request was not sent.",
    );
    const body = { a: "please rewrite", b: "ok" };
    await setOf("/")?.checkJson("request", body, context);
    expect(body).toEqual({ a: "please [X]", b: "ok" });
  });

  it("fails closed when it times out, unless failOpen", async () => {
    // 100 ms against a webhook that answers later: the timeout decides, however loaded the machine.
    const closed = await setOf("/slow", { timeoutMs: 100 })?.checkJson("request", { text: "hi" });
    expect(closed?.block).toMatchObject({ guardrail: "mod", entity: "webhook-unavailable", action: "block" });
    const open = await setOf("/slow", { timeoutMs: 100, failOpen: true })?.checkJson("request", { text: "hi" });
    expect(open?.block).toBeUndefined();
    expect(open?.hits).toEqual([{ guardrail: "mod", kind: "webhook", action: "log", direction: "request", entity: "webhook-unavailable" }]);
  });
});
