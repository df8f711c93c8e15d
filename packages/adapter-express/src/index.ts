export { ExpressServerAdapter, createAdapter } from "./express-adapter.js";
