import { randomBytes } from "node:crypto";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { RpcErrorCode } from "../jsonrpc/json-rpc-error.js";
import { type RpcResponse, notificationMessage, requestMessage } from "../jsonrpc/json-rpc-message.js";

/** Sends one message to the client on a stream it reads; false when that stream cannot carry it. */
export type ClientRoute = (message: string) => boolean;

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

/**
 * The requests an upstream server makes of the client through the gateway (sampling,
 * elicitation, roots), as one session sends them: each gets an id no other process uses (the
 * client's answer may be posted to any process), goes out on the first route that takes it, and
 * waits for the client's answer — at most `timeoutMs`, less when the upstream gives up first
 * (then the client is told `notifications/cancelled`).
 *
 * @example
 * const result = await requests.ask("sampling/createMessage", params, [callStream, getStream], signal);
 */
export class ClientRequests {
  readonly #pending = new Map<string, Pending>();
  readonly #prefix = `conduit-${randomBytes(6).toString("hex")}-`;
  #sent = 0;

  constructor(private readonly timeoutMs: number) {}

  async ask(method: string, params: Record<string, unknown> | undefined, routes: ClientRoute[], signal: AbortSignal) {
    const id = `${this.#prefix}${++this.#sent}`;
    const message = requestMessage(id, method, params);
    const route = routes.find((candidate) => candidate(message));
    if (!route)
      throw new McpError(
        RpcErrorCode.INTERNAL_ERROR,
        `The client has no open stream to receive ${method} on (a call's SSE answer or the session's GET stream)`,
      );
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      route(notificationMessage("notifications/cancelled", { requestId: id, reason: "the MCP server cancelled its request" }));
      this.#pending.get(id)?.reject(new McpError(RpcErrorCode.INTERNAL_ERROR, `${method} was cancelled`));
    };
    try {
      return await new Promise<Record<string, unknown>>((resolve, reject) => {
        this.#pending.set(id, { resolve, reject });
        timer = setTimeout(
          () => reject(new McpError(RpcErrorCode.UPSTREAM_TIMEOUT, `The client did not answer ${method} within ${this.timeoutMs} ms`)),
          this.timeoutMs,
        );
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      this.#pending.delete(id);
    }
  }

  /** The client's answer to one of these requests; false when it is not this process's (another may hold it). */
  settle(response: RpcResponse): boolean {
    const pending = typeof response.id === "string" ? this.#pending.get(response.id) : undefined;
    if (!pending) return false;
    if (response.error) pending.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else pending.resolve(response.result ?? {});
    return true;
  }

  /** The session closes here: every request still waiting fails. */
  close(): void {
    for (const pending of this.#pending.values()) pending.reject(new McpError(RpcErrorCode.UPSTREAM_UNAVAILABLE, "The session closed"));
    this.#pending.clear();
  }
}
