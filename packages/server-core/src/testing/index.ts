/**
 * `@conduit-ai/server-core/testing`: the socket-free test kit. A whole Conduit pipeline answered
 * in memory (route groups, middleware, envelopes, streams), and the smallest runtime honoring the
 * contract — for unit tests of a route group or a middleware that need no port.
 */
export { type TestApp, type TestAppSetup, type TestRequest, type TestResponse, createTestApp } from "./test-kit.js";
export { createTestRuntime } from "./test-runtime.js";
