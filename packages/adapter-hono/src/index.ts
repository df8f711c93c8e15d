export { type ConduitHonoApp, HonoServerAdapter, createAdapter } from "./hono-adapter.js";
export { type ConduitFetchHandler, type ConduitSubApp, HonoWebAdapter, conduitApp, createFetchHandler } from "./hono-web.js";
