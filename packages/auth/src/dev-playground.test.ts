import { afterEach, describe, expect, it } from "vitest";
import { createAuthMiddleware } from "./auth-middleware.js";

describe("dev playground warning", () => {
  const originalEnv = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = originalEnv;
  });

  it("is emitted once, when the first middleware honoring the header is built", async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on("warning", listener);
    try {
      delete process.env.NODE_ENV;
      createAuthMiddleware({ type: "bearer", validate: () => null });
      createAuthMiddleware({ type: "bearer", validate: () => null, devPlayground: false });
      process.env.NODE_ENV = "development";
      createAuthMiddleware({ type: "bearer", validate: () => null, skipDevPlayground: false });
      // emitWarning delivers on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toHaveLength(0);
      createAuthMiddleware({ type: "bearer", validate: () => null });
      createAuthMiddleware({ type: "api-key", validate: () => null });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ code: "CONDUIT_DEV_PLAYGROUND" });
      expect(warnings[0]?.message).toContain("x-dev-playground");
    } finally {
      process.off("warning", listener);
    }
  });
});
