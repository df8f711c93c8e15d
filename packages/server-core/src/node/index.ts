export * from "./native-route-path.js";
export * from "./node-bridge.js";
export * from "./lingering-close.js";
export * from "./server-guards.js";
export * from "./upgrade-context.js";
export * from "./static-routes.js";
