export { type ConduitFastifyApp, FastifyServerAdapter, createAdapter } from "./fastify-adapter.js";
export { type ConduitPluginOptions, conduit } from "./fastify-plugin.js";
