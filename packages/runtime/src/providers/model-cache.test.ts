import { describe, expect, it } from "vitest";
import { cachedModels } from "./model-cache.js";

describe("cachedModels", () => {
  it("builds one model per id and returns the same instance after", () => {
    const built: string[] = [];
    const model = cachedModels((id) => {
      built.push(id);
      return { id };
    });
    const first = model("gpt-4o-mini");
    expect(model("gpt-4o-mini")).toBe(first);
    expect(model("claude-haiku")).not.toBe(first);
    expect(built).toEqual(["gpt-4o-mini", "claude-haiku"]);
  });

  it("holds at most maxEntries ids, the least recently used rebuilt", () => {
    const built: string[] = [];
    const model = cachedModels((id) => {
      built.push(id);
      return { id };
    }, 2);
    model("a");
    model("b");
    model("a");
    model("c");
    model("a");
    model("b");
    expect(built).toEqual(["a", "b", "c", "b"]);
  });
});
