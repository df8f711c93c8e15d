export * from "./adapters.js";
export * from "./harness.js";
