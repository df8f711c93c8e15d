import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";

/** Shared vitest settings: workspace packages are read from `src` through the `@conduit-ai/source` export condition, so tests need no build. */
const sourceCondition = "@conduit-ai/source";
/** Vite's server defaults (which setting `conditions` replaces) minus "module": vitest hands these to Node, where "module" could make `require()` pick ESM files. */
const viteServerConditions = ["node", "development|production"];

const shared = defineConfig({
  resolve: { conditions: [sourceCondition, ...viteServerConditions] },
  // Only the source condition reaches Node for external packages: adding "import" there makes
  // `require()` of dual packages (is-promise, used by Express's router) return ESM namespaces.
  ssr: { resolve: { conditions: [sourceCondition, ...viteServerConditions], externalConditions: [sourceCondition] } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    globalSetup: [fileURLToPath(new URL("./tools/test/redis-global-setup.ts", import.meta.url))],
  },
});

export default shared;

/**
 * The shared settings with each test worker keeping its modules from one test file to the next
 * (`isolate: false`): the sources are imported and transformed once per worker instead of once per
 * file, and no process is started per file (about 0.3 s of CPU each, the most of a small file's
 * cost). For packages whose test files leave no module state behind that another file relies on
 * (their fake timers and spies are restored after each test).
 */
export const withoutIsolation = mergeConfig(shared, defineConfig({ test: { isolate: false } }));
