import type { ServerAdapterError } from "../errors/server-adapter-error.js";

/** The request an error writer answers (read-only). */
export interface ErrorWriterRequest {
  readonly requestId: string;
  readonly method: string;
  /** The full path, query excluded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** An error answer in a surface's own shape. `retry-after` is already set from the error; these headers win. */
export interface WrittenError {
  status: number;
  headers?: Record<string, string>;
  /** JSON text (sent as `application/json` unless `headers` name another type). */
  body: string;
}

/**
 * Shapes Conduit's own errors (401, 404, 408, 413, 429, 5xx…) for the paths of a surface that
 * speaks another wire format, e.g. a vendor API's error shape on a proxy. The core still decides
 * status, logging and events; the writer only decides how the answer looks.
 */
export type ErrorWriter = (error: ServerAdapterError, request: ErrorWriterRequest) => WrittenError;

/**
 * An error writer for every path starting with `pathPrefix` (an absolute path, compared as a
 * plain string prefix: `/v1/messages` covers `/v1/messages/count_tokens`); the longest prefix wins.
 */
export interface ErrorShape {
  pathPrefix: string;
  write: ErrorWriter;
}
