import { defineConfig, mergeConfig } from "vitest/config";
import { withoutIsolation } from "../../vitest.shared.js";

// The browser tests (browser/) need Chromium and tools installed by scripts/browser-check.mjs; `vitest run` leaves them out.
// Test files share their worker's imports (see withoutIsolation in vitest.shared.ts).
export default mergeConfig(withoutIsolation, defineConfig({ test: { include: ["src/**/*.test.ts"] } }));
