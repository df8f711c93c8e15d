import { MissingDependencyError } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { loadProviderPackage } from "./provider-package.js";

describe("a provider type's package", () => {
  it("is a MissingDependencyError naming the install line and the provider when it is not installed", async () => {
    const context = { name: "gemini", keys: undefined, fetch: globalThis.fetch, environment: {} };
    const missing = "@ai-sdk/not-installed-vendor";
    const error = await loadProviderPackage(missing, () => import(missing), context).catch((caught: unknown) => caught);
    expect(MissingDependencyError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /Missing dependency "@ai-sdk\/not-installed-vendor" \(needed by the provider "gemini" \(providers\.gemini\)\)\. Install it with: \S+ (add|install) @ai-sdk\/not-installed-vendor/,
    );
  });
});
