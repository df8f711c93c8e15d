import { RpcError, RpcErrorCode } from "./json-rpc-error.js";

export type RpcId = string | number;

/** A request from the client: it gets exactly one response. */
export interface RpcRequest {
  jsonrpc: "2.0";
  id: RpcId;
  method: string;
  params?: Record<string, unknown>;
}

/** A notification from the client: answered by nothing (HTTP 202). */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

/** What a client may POST: a request, a notification, or a response to a request of the server. */
export type RpcIncoming =
  | { kind: "request"; message: RpcRequest }
  | { kind: "notification"; message: RpcNotification }
  | { kind: "response"; message: RpcResponse };

/** A client's response to a request the gateway sent it (sampling, elicitation, roots). */
export interface RpcResponse {
  id: RpcId;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * One JSON-RPC 2.0 message from a POST body, checked by hand (the hot path parses every request
 * once and builds no schema objects). Batches are refused: MCP removed them in 2025-06-18.
 *
 * @example
 * const incoming = parseIncoming(JSON.parse(text)); // { kind: "request", message: { id: 1, method: "tools/list", ... } }
 */
export function parseIncoming(value: unknown): RpcIncoming {
  if (Array.isArray(value))
    throw new RpcError(RpcErrorCode.INVALID_REQUEST, "JSON-RPC batches are not supported (MCP 2025-06-18 and later)");
  if (!isObject(value) || value.jsonrpc !== "2.0")
    throw new RpcError(RpcErrorCode.INVALID_REQUEST, 'Not a JSON-RPC 2.0 message (jsonrpc must be "2.0")');
  const { id, method, params } = value;
  const validId = (typeof id === "string" && id.length <= 200) || (typeof id === "number" && Number.isFinite(id));
  if (params !== undefined && !isObject(params)) throw new RpcError(RpcErrorCode.INVALID_REQUEST, "params must be an object");
  if (typeof method === "string") {
    if (method.length === 0 || method.length > 200) throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Invalid method");
    if (id === undefined) return { kind: "notification", message: { jsonrpc: "2.0", method, ...(params ? { params } : {}) } };
    if (!validId) throw new RpcError(RpcErrorCode.INVALID_REQUEST, "id must be a string or a number");
    return { kind: "request", message: { jsonrpc: "2.0", id: id as RpcId, method, ...(params ? { params } : {}) } };
  }
  if (validId && isObject(value.result)) return { kind: "response", message: { id: id as RpcId, result: value.result } };
  if (validId && isObject(value.error)) {
    const { code, message, data } = value.error;
    return {
      kind: "response",
      message: {
        id: id as RpcId,
        error: {
          code: typeof code === "number" && Number.isInteger(code) ? code : RpcErrorCode.INTERNAL_ERROR,
          message: typeof message === "string" ? message.slice(0, 1_000) : "Error",
          ...(data === undefined ? {} : { data }),
        },
      },
    };
  }
  throw new RpcError(RpcErrorCode.INVALID_REQUEST, "A JSON-RPC message needs a method (or a result or error)");
}

/** The response to a request: its result. */
export function resultMessage(id: RpcId, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

/** The response to a request (or to an unreadable message: id null): an error. */
export function errorMessage(id: RpcId | null, error: RpcError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** A request the gateway sends the client (on behalf of an upstream server). */
export function requestMessage(id: RpcId, method: string, params?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
}

/** A notification the gateway sends. */
export function notificationMessage(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) });
}
