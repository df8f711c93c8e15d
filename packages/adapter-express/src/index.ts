export { ExpressServerAdapter, createAdapter } from "./express-adapter.js";
export { type ConduitRouter, conduitRouter } from "./express-router.js";
