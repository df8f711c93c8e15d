import { describe, expect, it } from "vitest";
import { pathMatchesFilter } from "../core/pipeline/path-pattern.js";
import { matchesPathPrefix, prefixFilters } from "./path-prefix.js";

describe("prefixFilters", () => {
  it("excludes exactly the paths matchesPathPrefix skips", () => {
    const prefixes = ["/health", "/ready/", "/docs*", "/metrics"];
    const paths = [
      "/health",
      "/health/",
      "/health/live",
      "/healthz",
      "/ready",
      "/ready/",
      "/ready/x",
      "/docs",
      "/docs.json",
      "/docsy/a",
      "/metric",
      "/metrics/a",
      "/",
      "/api/health",
    ];
    const filters = prefixFilters(prefixes);
    for (const path of paths) {
      expect(
        filters.some((filter) => pathMatchesFilter(path, filter)),
        path,
      ).toBe(matchesPathPrefix(path, prefixes));
    }
  });
});
