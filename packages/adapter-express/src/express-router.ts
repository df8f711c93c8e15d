import { type MountOptions, mountedConfig, prepareMounted } from "@conduit-ai/server-core";
import { claimsRequest, handleNodeRequest } from "@conduit-ai/server-core/node";
import express, { type Request, type Response, type Router } from "express";
import { ExpressServerAdapter } from "./express-adapter.js";

/** An Express router serving Conduit; `conduit` is the server behind it (routes, middleware, `stop()` to drain). */
export type ConduitRouter = Router & { readonly conduit: ExpressServerAdapter };

/**
 * Conduit as an Express `Router`, for `app.use("/ai", router)` in the user's own app and server.
 * Paths Conduit has a route for are answered by the core (envelopes, middleware, errors and
 * streams as on the standalone server); every other path goes on to the host app (`next()`).
 * `basePath` defaults to `""`: routes sit right under the mount point (`/ai/agent/stream`).
 *
 * @example
 * const app = express();
 * app.use("/ai", conduitRouter({ runtime }));
 * app.listen(3000);
 */
export function conduitRouter(options: MountOptions<ExpressServerAdapter> = {}): ConduitRouter {
  const conduit = prepareMounted(new ExpressServerAdapter(options.runtime, mountedConfig(options.config)), options);
  const router = express.Router();
  router.use((request: Request, response: Response, next: () => void) => {
    // Express removed the mount path from `request.url`: the core matches what lies under it.
    if (!claimsRequest(conduit.handler, request.url)) return next();
    // A host's `express.json()` may already have read the body: the bridge then takes its result.
    void handleNodeRequest(conduit.handler, request, response, undefined, { frameworkBody: (request as { body?: unknown }).body });
  });
  return Object.assign(router, { conduit });
}
