import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools } from "./builtin-tools.js";
import { RuntimeToolRegistry } from "./tool-registry.js";
import { rejection } from "../testing/rejection.js";

function createRegistry(): RuntimeToolRegistry {
  const registry = new RuntimeToolRegistry();
  for (const tool of builtinTools) registry.register(tool);
  registry.register({
    name: "delete_everything",
    description: "Dangerous operation",
    schema: z.object({ target: z.string() }),
    requiresConfirmation: true,
    execute: ({ target }) => `deleted ${target}`,
  });
  return registry;
}

describe("RuntimeToolRegistry", () => {
  it("lists tools with JSON Schema derived from zod", () => {
    const calculator = createRegistry().get("calculator");
    expect(calculator?.source).toBe("builtin");
    expect(calculator?.inputSchema).toMatchObject({
      type: "object",
      properties: { expression: { type: "string" } },
      required: ["expression"],
    });
  });

  it("searches by name, description and source with a limit", () => {
    const registry = createRegistry();
    expect(registry.search({ q: "arithmetic" }).map((tool) => tool.name)).toEqual(["calculator"]);
    expect(registry.search({ source: "user" }).map((tool) => tool.name)).toEqual(["delete_everything"]);
    expect(registry.search({ q: "builtin", limit: 2 })).toHaveLength(2);
  });

  it("executes with parsed arguments and measures duration", async () => {
    const result = await createRegistry().execute("calculator", { expression: "6 * 7" });
    expect(result).toMatchObject({ name: "calculator", result: { value: 42 } });
    expect(result.duration).toBeGreaterThanOrEqual(0);
    const time = await createRegistry().execute("current_time", { timezone: "Asia/Tokyo" });
    expect(time.result).toMatchObject({ timezone: "Asia/Tokyo" });
  });

  it("rejects invalid arguments with a 400 listing the fields", async () => {
    const error = await rejection(createRegistry().execute("current_time", { timezone: "Mars/Olympus" }));
    expect(error.statusCode).toBe(400);
    expect(error.details).toEqual({ errors: [{ field: "timezone", message: "Unknown IANA time zone" }] });
    const bad = await rejection(createRegistry().execute("calculator", { expression: "2 +" }));
    expect(bad).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" });
  });

  it("answers unknown tools with 404 TOOL_NOT_FOUND", async () => {
    expect(await rejection(createRegistry().execute("nope", {}))).toMatchObject({ statusCode: 404, code: "TOOL_NOT_FOUND" });
  });

  it("requires confirmation for flagged tools", async () => {
    const registry = createRegistry();
    const error = await rejection(registry.execute("delete_everything", { target: "db" }));
    expect(error).toMatchObject({ statusCode: 428, code: "USER_CONFIRMATION_REQUIRED" });
    expect((await registry.execute("delete_everything", { target: "db" }, { confirmed: true })).result).toBe("deleted db");
  });

  it("wraps a crashing tool in TOOL_EXECUTION_FAILED", async () => {
    const registry = new RuntimeToolRegistry().register({
      name: "broken",
      description: "always fails",
      schema: z.object({}),
      execute: () => {
        throw new Error("boom");
      },
    });
    expect(await rejection(registry.execute("broken", {}))).toMatchObject({ statusCode: 500, code: "TOOL_EXECUTION_FAILED" });
  });
});
