import type { BaseServerAdapter, Runtime, ServerAdapterConfig, ServerFramework } from "@conduit-ai/server-core";
import { createAdapter as createExpressAdapter } from "@conduit-ai/adapter-express";
import { createAdapter as createFastifyAdapter } from "@conduit-ai/adapter-fastify";
import { createAdapter as createHonoAdapter } from "@conduit-ai/adapter-hono";
import { createAdapter as createKoaAdapter } from "@conduit-ai/adapter-koa";

/** One adapter under test. Every case of the suite runs against each entry. */
export interface AdapterUnderTest {
  framework: ServerFramework;
  create(runtime: Runtime | undefined, config: ServerAdapterConfig): BaseServerAdapter<unknown>;
}

/** The adapters the suite covers. A new adapter is one line here; a deviation is a bug, never a skip. */
export const ADAPTERS: AdapterUnderTest[] = [
  { framework: "hono", create: createHonoAdapter },
  { framework: "express", create: createExpressAdapter },
  { framework: "fastify", create: createFastifyAdapter },
  { framework: "koa", create: createKoaAdapter },
];
