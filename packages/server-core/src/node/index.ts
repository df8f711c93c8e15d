export * from "./native-route-path.js";
export * from "./node-bridge.js";
