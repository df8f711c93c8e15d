import type { RegisteredRoute, RequestHandler } from "@conduit-ai/server-core";
import { type NodeRequestOptions, handleNodeRequest } from "@conduit-ai/server-core/node";
import type { FastifyReply, FastifyRequest, preParsingHookHandler } from "fastify";

/** Hands the raw request to the core; Fastify stops its lifecycle for a hijacked reply. */
export function takeOver(handler: RequestHandler, request: FastifyRequest, reply: FastifyReply, route?: RegisteredRoute): void {
  if (reply.sent) return;
  reply.hijack();
  const options: NodeRequestOptions = { frameworkBody: request.body };
  void handleNodeRequest(handler, request.raw, reply.raw, route, options);
}

/**
 * Takes the request over in the route's own `preParsing` hook (after the user's `onRequest` and
 * `preParsing` hooks), before Fastify's content-type parsing and body limit, so the core reads
 * the raw body with its own limits; the route's handler is then never reached.
 */
export function takeOverBeforeParsing(handler: RequestHandler, route?: RegisteredRoute): preParsingHookHandler {
  return (request, reply, _payload, done) => {
    takeOver(handler, request, reply, route);
    done();
  };
}
