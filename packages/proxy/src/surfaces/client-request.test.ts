import type { ServerContext } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { searchOf } from "./client-request.js";

const withQuery = (query: ServerContext["query"]) => ({ query }) as ServerContext;

describe("searchOf", () => {
  it("is empty for a call without a query", () => {
    expect(searchOf(withQuery({}))).toBe("");
  });

  it("rebuilds the client's query, repeated names and escapes kept", () => {
    expect(searchOf(withQuery({ beta: "true", tag: ["a", "b c"] }))).toBe("?beta=true&tag=a&tag=b+c");
  });
});
