/**
 * `@conduit-ai/adapter-hono/fetch`: Conduit for web-standard runtimes (Bun, Deno, Cloudflare
 * Workers). Imports neither `node:http` nor `@hono/node-server`.
 */
export { type ConduitFetchHandler, type ConduitSubApp, HonoWebAdapter, conduitApp, createAdapter, createFetchHandler } from "./hono-web.js";
