export * from "./node-bridge.js";
