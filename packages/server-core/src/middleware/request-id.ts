import { randomUUID } from "node:crypto";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { PASSED_ON, middlewareFromHooks } from "../core/pipeline/middleware-hooks.js";

/** Only ids that cannot smuggle anything into logs or headers are honored (same rule as the core). */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const CORE_HEADER = "x-request-id";

export interface RequestIdOptions {
  /** Incoming and outgoing header (default `x-request-id`). */
  headerName?: string;
  /** Prefix of generated ids (default `req`, giving `req-<uuid>`). */
  prefix?: string;
  /** Builds a new id; its result is used as is. */
  generator?: () => string;
}

/**
 * Request id (order 0). The core already assigns `ctx.requestId` with the default rule
 * (a safe incoming `x-request-id`, else `req-<uuid>`) and echoes it; this middleware
 * keeps that id by default and only recomputes it for a custom header, prefix or
 * generator. The id then appears in the response header, every envelope and log line.
 *
 * @example
 * adapter.registerMiddleware(createRequestIdMiddleware({ headerName: "x-correlation-id", prefix: "api" }));
 */
export function createRequestIdMiddleware(options: RequestIdOptions = {}): MiddlewareDefinition {
  const headerName = (options.headerName ?? CORE_HEADER).toLowerCase();
  const prefix = options.prefix ?? "req";
  const customized = headerName !== CORE_HEADER || prefix !== "req" || options.generator !== undefined;
  const generate = options.generator ?? (() => `${prefix}-${randomUUID()}`);
  return middlewareFromHooks(
    {
      name: "request-id",
      order: 0,
      // Not customized: the core already assigns and echoes the id, so this stays registered
      // (listed, ordered) but joins no request's chain.
      ...(customized ? {} : { paths: [] }),
    },
    {
      before: (ctx) => {
        // Not customized: the core's id and header stand as they are.
        if (customized) {
          const incoming = ctx.header(headerName);
          ctx.requestId = incoming !== undefined && SAFE_REQUEST_ID.test(incoming) ? incoming : generate();
          if (headerName !== CORE_HEADER) delete ctx.response.headers[CORE_HEADER];
          ctx.setHeader(headerName, ctx.requestId);
        }
        return PASSED_ON;
      },
    },
  );
}
