import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** Shared vitest settings: workspace packages are read from `src` through the `@conduit-ai/source` export condition, so tests need no build. */
export const sourceConditions = ["@conduit-ai/source", "import", "module", "node", "default"];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ["@conduit-ai/source"] } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    globalSetup: [fileURLToPath(new URL("./tools/test/redis-global-setup.ts", import.meta.url))],
  },
});
