import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// Files run two at a time on two cores (vitest's default is one worker less than the cores;
// VITEST_MAX_WORKERS overrides): three beside the other suites saturated the machine in CI, and the
// cases with deadlines (a webhook's) then timed out.
// `test` leaves the topology and fault cases (src/topology, src/faults: several processes each,
// store deadlines) to `test:topology`, which the quick start's `test` runs after every package's.
export default mergeConfig(shared, defineConfig({ test: { maxWorkers: 2 } }));
