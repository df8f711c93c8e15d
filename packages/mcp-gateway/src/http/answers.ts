import { type ErrorShape, type RawResponse, type ResponseHeaders, rawResponse } from "@conduit-ai/server-core";
import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import { type RpcId, errorMessage } from "../jsonrpc/json-rpc-message.js";

const JSON_TYPE = "application/json";

/** A JSON answer, sent as is. */
export function jsonAnswer(status: number, body: string, headers: ResponseHeaders = {}): RawResponse {
  return rawResponse(body, { status, headers: { "content-type": JSON_TYPE, ...headers } });
}

/**
 * An HTTP-level refusal in JSON-RPC's shape (what MCP clients read), id null unless it answers a
 * known request: 400 a bad message or header, 401 no or a wrong credential, 404 an unknown session.
 */
export function rpcErrorAnswer(status: number, error: RpcError, headers: ResponseHeaders = {}, id: RpcId | null = null): RawResponse {
  return jsonAnswer(status, errorMessage(id, error), headers);
}

/** 202: a notification or a response, accepted. */
export function accepted(headers: ResponseHeaders = {}): RawResponse {
  return rawResponse(null, { status: 202, headers });
}

/**
 * Conduit's own errors on the endpoint (a body over the limit, a timeout, a store outage, an
 * unknown method on the path) in JSON-RPC's shape too, with Conduit's code and the request id in
 * `data`: an MCP client reads every answer of its endpoint the same way.
 */
export function mcpErrorShape(pathPrefix: string): ErrorShape {
  return {
    pathPrefix,
    write: (error, request) => ({
      status: error.statusCode,
      body: errorMessage(
        null,
        new RpcError(error.statusCode >= 500 ? RpcErrorCode.INTERNAL_ERROR : RpcErrorCode.INVALID_REQUEST, error.message, {
          code: error.code,
          requestId: request.requestId,
        }),
      ),
    }),
  };
}
