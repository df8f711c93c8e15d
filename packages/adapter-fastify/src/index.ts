export { type ConduitFastifyApp, FastifyServerAdapter, createAdapter } from "./fastify-adapter.js";
