export { KoaServerAdapter, createAdapter } from "./koa-adapter.js";
