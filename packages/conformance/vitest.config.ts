import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// Most cases wait on sockets and timers rather than compute, so files run three at a time even on
// two cores (vitest's default is one worker less than the cores; VITEST_MAX_WORKERS overrides).
// `test` leaves the topology and fault cases (src/topology, src/faults: several processes each,
// store deadlines) to `test:topology`, which the quick start's `test` runs after every package's.
export default mergeConfig(shared, defineConfig({ test: { maxWorkers: 3 } }));
