// Test files share their worker's imports (see withoutIsolation in vitest.shared.ts).
export { withoutIsolation as default } from "../../vitest.shared.js";
