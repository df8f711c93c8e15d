import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

/** Run by scripts/browser-check.mjs (`pnpm --filter @conduit-ai/console test:browser`), which installs the browser tools first. */
export default mergeConfig(
  shared,
  defineConfig({ test: { include: ["browser/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 120_000, fileParallelism: false } }),
);
