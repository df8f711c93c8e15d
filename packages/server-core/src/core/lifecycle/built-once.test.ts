import { describe, expect, it } from "vitest";
import { generateRequestSchema } from "../../routes/schemas.js";
import { builtOnce } from "./built-once.js";

describe("builtOnce", () => {
  it("builds on the first call only, and returns the same value after", () => {
    let builds = 0;
    const value = builtOnce(() => ({ built: ++builds }));
    expect(builds).toBe(0);
    expect(value()).toBe(value());
    expect(builds).toBe(1);
  });

  it("keeps a schema's identity, so routes and the OpenAPI document share one instance", () => {
    expect(generateRequestSchema()).toBe(generateRequestSchema());
    expect(generateRequestSchema().safeParse({ input: { text: "hi" } }).success).toBe(true);
  });
});
