export * from "./web-bridge.js";
