import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// The browser tests (browser/) need Chromium and tools installed by scripts/browser-check.mjs; `vitest run` leaves them out.
export default mergeConfig(shared, defineConfig({ test: { include: ["src/**/*.test.ts"] } }));
