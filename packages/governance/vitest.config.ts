import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import { withoutIsolation } from "../../vitest.shared.js";

// Governance's history tests need PostgreSQL as the others need Redis: started when none answers.
// Test files share their worker's imports (see withoutIsolation in vitest.shared.ts).
export default mergeConfig(
  withoutIsolation,
  defineConfig({
    test: {
      // Added to the shared Redis setup (mergeConfig concatenates arrays).
      globalSetup: [fileURLToPath(new URL("../../tools/test/postgres-global-setup.ts", import.meta.url))],
    },
  }),
);
