import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// Files run two at a time on two cores (vitest's default is one worker less than the cores;
// VITEST_MAX_WORKERS overrides): three beside the other suites saturated the machine in CI, and the
// cases with deadlines (a webhook's) then timed out.
// Not isolated: a worker imports the packages' sources once for all the files it runs instead of once
// per file (summed over files, the import took 135 s before, 30 s after; the same 1776 cases pass). The files share
// no module state they rely on: each starts its own servers, fakes and stores and closes them, and the
// two that change process.env put it back. `test:topology` keeps each file in a process of its own (--isolate):
// its files start processes and kill stores, and the import is a small part of what they cost.
// `test` leaves the topology and fault cases (src/topology, src/faults: several processes each,
// store deadlines) to `test:topology`, which the quick start's `test` runs after every package's.
export default mergeConfig(shared, defineConfig({ test: { maxWorkers: 2, isolate: false } }));
