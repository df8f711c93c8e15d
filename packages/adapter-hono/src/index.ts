export { type ConduitHonoApp, HonoServerAdapter, createAdapter } from "./hono-adapter.js";
