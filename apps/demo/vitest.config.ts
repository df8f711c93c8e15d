import { mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// Every demo test starts the demo as a child process that loads the source through tsx (and some
// start two): seconds apiece on a loaded CI machine, so more time than the shared 20 s.
export default mergeConfig(shared, { test: { testTimeout: 60_000 } });
