export { KoaServerAdapter, createAdapter } from "./koa-adapter.js";
export { type ConduitKoaMiddleware, conduitMiddleware } from "./koa-middleware.js";
