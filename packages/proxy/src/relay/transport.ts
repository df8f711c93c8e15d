import { Agent as HttpAgent, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

export interface UpstreamReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

/**
 * POSTs to the vendor over keep-alive sockets with Node's own client: a fraction of `fetch`'s
 * cost per request, which is most of what the proxy adds. Aborting `signal` destroys the
 * request (and the answer's body mid-stream).
 */
export class UpstreamClient {
  private readonly httpAgent = new HttpAgent({ keepAlive: true, scheduling: "lifo" });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, scheduling: "lifo" });

  /** `headers` are this request's own: its `content-length` is set on them (no copy per request). */
  post(url: URL, headers: Record<string, string>, body: Uint8Array, signal: AbortSignal): Promise<UpstreamReply> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      headers["content-length"] = String(body.byteLength);
      const secure = url.protocol === "https:";
      const outgoing = (secure ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: "POST",
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
      });
      // The signal watched by hand rather than through the `signal` option, which adds an
      // end-of-stream watcher per request; the request closes once its answer is done or cut.
      const onAbort = () => outgoing.destroy(abortError(signal));
      signal.addEventListener("abort", onAbort, { once: true });
      outgoing.once("close", () => signal.removeEventListener("abort", onAbort));
      outgoing.once("response", (response) => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: response }));
      outgoing.once("error", reject);
      outgoing.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** The error Node's own `signal` option destroys a request with. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error("The operation was aborted", { cause: signal.reason }), { name: "AbortError", code: "ABORT_ERR" });
}
