import { describe, expect, it } from "vitest";
import { jsonDepthExceeds, valueDepthExceeds } from "./json-depth.js";

describe("JSON nesting depth", () => {
  it("counts arrays and objects, not brackets inside strings or escaped quotes", () => {
    expect(jsonDepthExceeds('{"a":[1]}', 1)).toBe(true);
    expect(jsonDepthExceeds('{"a":[1]}', 2)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ text: "[[[[[[[[[[" }), 1)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ text: 'say \\"[[[[' }), 1)).toBe(false);
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    expect(jsonDepthExceeds(deep, 64)).toBe(true);
    expect(jsonDepthExceeds(`${"[".repeat(64)}${"]".repeat(64)}`, 64)).toBe(false);
  });

  it("walks a parsed value without recursion, cycles included", () => {
    let value: unknown = 1;
    for (let level = 0; level < 100_000; level++) value = [value];
    expect(valueDepthExceeds(value, 64)).toBe(true);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(valueDepthExceeds(cyclic, 64)).toBe(false);
    expect(valueDepthExceeds({ a: { b: [1, 2] } }, 3)).toBe(false);
    expect(valueDepthExceeds({ a: { b: [1, 2] } }, 2)).toBe(true);
  });
});
