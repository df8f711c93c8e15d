import type { ServerFramework } from "./http.js";

/**
 * Framework id → the framework app `getFrameworkInstance()` returns. Empty here (the core depends
 * on no framework); each adapter package adds its entry by declaration merging, so once an
 * adapter's types are in the program, `createServer(runtime, {framework: "express"})` returns
 * an adapter whose `getFrameworkInstance()` is an `Express` app.
 *
 * @example
 * // in @conduit-ai/adapter-express
 * declare module "@conduit-ai/server-core" {
 *   interface FrameworkApps { express: Express }
 * }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the adapters through declaration merging
export interface FrameworkApps {}

/** The app type of `framework` (`unknown` until its adapter's types are loaded). */
export type FrameworkAppOf<TFramework extends ServerFramework> = TFramework extends keyof FrameworkApps
  ? FrameworkApps[TFramework]
  : unknown;
