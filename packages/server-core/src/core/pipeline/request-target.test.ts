import { describe, expect, it } from "vitest";
import { parseRequestTarget } from "./request-target.js";

describe("parseRequestTarget", () => {
  it("resolves dot segments without ever reading a path as a host", () => {
    expect(parseRequestTarget("/a/../b?x=1")).toEqual({ path: "/b", search: "x=1" });
    expect(parseRequestTarget("/a/%2e%2e/b")).toEqual({ path: "/b", search: "" });
    // Found by the fuzz suite: `//:id/.` resolved against a base is an invalid host and threw.
    expect(parseRequestTarget("//:id/.")).toEqual({ path: "//:id/", search: "" });
    expect(parseRequestTarget("//evil.example/../x")).toEqual({ path: "//x", search: "" });
  });

  it("accepts absolute-form and asterisk-form, refuses the rest", () => {
    expect(parseRequestTarget("http://example.com/api/x?y=1")).toEqual({ path: "/api/x", search: "y=1" });
    expect(parseRequestTarget("*")).toEqual({ path: "*", search: "" });
    expect(parseRequestTarget("example.com:443")).toBeUndefined();
    expect(parseRequestTarget("http://[bad")).toBeUndefined();
  });
});
