import { z } from "zod";
import { describe, expect, it } from "vitest";
import { formatZodIssues, summarizeIssues, zodIssueField } from "./zod-issues.js";

const chat = z.strictObject({ messages: z.array(z.object({ role: z.enum(["user", "assistant"]) })), model: z.string() });

describe("formatZodIssues", () => {
  it("names each field from the root, with the rejected value when the input is given", () => {
    const input = { messages: [{ role: "robot" }], model: 7 };
    const issues = formatZodIssues(chat.safeParse(input).error!, { root: "body", input });
    expect(issues.map(({ field, value }) => [field, value])).toEqual([
      ["body.messages.0.role", "robot"],
      ["body.model", 7],
    ]);
  });

  it("spells indices as brackets for vendor surfaces and the whole input as rootField", () => {
    expect(zodIssueField(["messages", 0, "role"], { indices: "brackets" })).toBe("messages[0].role");
    expect(zodIssueField([], { rootField: "payload" })).toBe("payload");
    expect(zodIssueField([], { root: "framework" })).toBe("framework");
    expect(zodIssueField([])).toBe("(root)");
  });

  it("unknown keys one by one or joined, a surface's own wording, a limit", () => {
    const error = chat.safeParse({ messages: [], model: "m", tmperature: 1, topp: 2 }).error!;
    expect(formatZodIssues(error, { root: "auth", unknownKeys: "each" })).toEqual([
      { field: "auth.tmperature", message: "unknown key" },
      { field: "auth.topp", message: "unknown key" },
    ]);
    expect(formatZodIssues(error, { unknownKeys: "joined" })).toEqual([{ field: "tmperature, topp", message: "unknown key" }]);
    expect(formatZodIssues(error, { message: (issue) => issue.code ?? "" })).toEqual([{ field: "(root)", message: "unrecognized_keys" }]);
    const many = z.array(z.string()).safeParse([1, 2, 3]).error!;
    expect(summarizeIssues(formatZodIssues(many, { root: "tags", limit: 2 }))).toBe(
      "tags.0: Invalid input: expected string, received number; tags.1: Invalid input: expected string, received number",
    );
  });
});
