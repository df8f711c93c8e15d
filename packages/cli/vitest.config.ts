import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// Most files start `conduit` processes and wait on them, so two run at a time even on two cores
// (vitest's default is one worker less than the cores; VITEST_MAX_WORKERS overrides).
export default mergeConfig(shared, defineConfig({ test: { maxWorkers: 2 } }));
