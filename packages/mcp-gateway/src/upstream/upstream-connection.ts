import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { isHttpUpstream, type UpstreamServerConfig } from "../config/upstream-config.js";
import type { UpstreamSessionState } from "../session/session-store.js";
import { VERSION } from "../version.js";
import type { ClientRoute } from "../session/client-requests.js";
import { forwardClientRequests, forwardedCapabilities } from "./client-request-handlers.js";
import { isSessionGone, upstreamError } from "./upstream-errors.js";
import { type UpstreamHeaders, upstreamFetch } from "./upstream-fetch.js";

/** A notification an upstream server sent on its own (list changed, resource updated, log message). */
export interface UpstreamNotification {
  method: string;
  params?: Record<string, unknown>;
}

export interface UpstreamConnectionOptions {
  server: string;
  config: UpstreamServerConfig;
  /** One call, connecting included, is given this long (`mcp.requestTimeoutMs`). */
  timeoutMs: number;
  /** This caller's headers for an HTTP server (its credential), read per HTTP request. */
  headers: UpstreamHeaders;
  /** The upstream session another process opened for this client session, to continue. */
  resume?: UpstreamSessionState | undefined;
  onNotification(notification: UpstreamNotification): void;
  /** The client's capabilities (`initialize`): its sampling, elicitation and roots are declared upstream. */
  clientCapabilities?: Record<string, unknown> | undefined;
  /**
   * The server asks the client (sampling, elicitation, roots): `route` is the stream of the latest
   * call in flight to this server, when there is one.
   */
  onClientRequest?(
    method: string,
    params: Record<string, unknown> | undefined,
    route: ClientRoute | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
  /** The upstream session changed (opened afresh): recorded so other processes continue it. */
  onSession(state: UpstreamSessionState, fresh: boolean): void;
}

export interface UpstreamCallOptions {
  signal?: AbortSignal | undefined;
  onprogress?: ((progress: Record<string, unknown>) => void) | undefined;
  /** The stream of the client request this call serves: what the server asks the client meanwhile goes there. */
  route?: ClientRoute | undefined;
}

/**
 * One client session's connection to one upstream server, on the official SDK's `Client`:
 * stdio (a child process per session), Streamable HTTP (continuing the upstream session another
 * process opened, by its id) or the older HTTP+SSE. It connects on first use and again after it
 * was lost (a killed process, a closed server), each call bounded by `timeoutMs` from its start,
 * connecting included; a failure is an `RpcError` naming the server.
 *
 * @example
 * const connection = new UpstreamConnection({ server: "files", config, timeoutMs: 30_000, headers, onNotification, onSession });
 * const listed = await connection.request("tools/list", {});
 */
export class UpstreamConnection {
  readonly server: string;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #connecting: Promise<Client> | undefined;
  #resume: UpstreamSessionState | undefined;
  #capabilities: Record<string, unknown> | undefined;
  #closed = false;
  /** Progress tokens of calls in flight → where their progress goes (see `#watchProgress`). */
  readonly #progress = new Map<string, (progress: Record<string, unknown>) => void>();
  #progressTokens = 0;
  /** Streams of the client requests in flight to this server, the latest last. */
  readonly #routes: ClientRoute[] = [];

  constructor(private readonly options: UpstreamConnectionOptions) {
    this.server = options.server;
    this.#resume = options.resume?.sessionId ? options.resume : undefined;
    this.#capabilities = options.resume?.capabilities;
  }

  /** The server's capabilities once known (negotiated here, or recorded by the process that did). */
  get capabilities(): Record<string, unknown> | undefined {
    return this.#capabilities;
  }

  /** The child process of a stdio server while connected (tests kill it). */
  get processId(): number | null {
    return this.#transport instanceof StdioClientTransport ? this.#transport.pid : null;
  }

  /** One request, connecting first when needed; a resumed upstream session that is gone is opened afresh once. */
  async request(method: string, params: Record<string, unknown> | undefined, options: UpstreamCallOptions = {}) {
    const deadline = Date.now() + this.options.timeoutMs;
    if (options.route) this.#routes.push(options.route);
    try {
      const client = await this.#connected(deadline);
      try {
        return await this.#send(client, method, params, options, deadline);
      } catch (error) {
        if (!isSessionGone(error) || this.#client !== client) throw error;
        // The upstream forgot the session another process opened: a new one, transparently.
        this.#drop(client);
        this.#resume = undefined;
        return await this.#send(await this.#connected(deadline), method, params, options, deadline);
      }
    } catch (error) {
      throw upstreamError(this.server, method, error, this.options.timeoutMs);
    } finally {
      if (options.route) this.#routes.splice(this.#routes.lastIndexOf(options.route), 1);
    }
  }

  async #send(client: Client, method: string, params: Record<string, unknown> | undefined, options: UpstreamCallOptions, deadline: number) {
    let token: string | undefined;
    let sent = params;
    if (options.onprogress) {
      token = `conduit-${++this.#progressTokens}`;
      this.#progress.set(token, options.onprogress);
      sent = { ...params, _meta: { ...((params?._meta as Record<string, unknown> | undefined) ?? {}), progressToken: token } };
    }
    try {
      return (await client.request({ method, ...(sent ? { params: sent } : {}) } as never, ResultSchema, {
        timeout: Math.max(1, deadline - Date.now()),
        ...(options.signal ? { signal: options.signal } : {}),
      })) as Record<string, unknown>;
    } finally {
      if (token) this.#progress.delete(token);
    }
  }

  /**
   * Progress is taken from the transport as each message arrives, in order, before the SDK sees
   * it: the SDK's client handles a notification a microtask after a response read in the same
   * chunk, so a busy process would drop the last progress of a call (its handler already gone).
   */
  #watchProgress(transport: Transport): void {
    const deliver = transport.onmessage;
    if (!deliver) return;
    transport.onmessage = (message, extra) => {
      const { method, params } = message as { method?: unknown; params?: { progressToken?: unknown } & Record<string, unknown> };
      if (method === "notifications/progress" && typeof params?.progressToken === "string") {
        const onprogress = this.#progress.get(params.progressToken);
        if (onprogress) {
          const { progressToken: _token, ...progress } = params;
          onprogress(progress);
          return;
        }
      }
      deliver.call(transport, message, extra);
    };
  }

  /** A notification to the upstream (a cancellation, `initialized`); dropped when not connected. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.#client?.notification({ method, ...(params ? { params } : {}) } as never).catch(() => undefined);
  }

  /** Connected now (a failed or closed connection is retried here, on demand). */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  #connected(deadline: number): Promise<Client> {
    if (this.#closed) return Promise.reject(new Error("connection closed"));
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= this.#connect(deadline).finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(deadline: number): Promise<Client> {
    const resume = this.#resume;
    const declared = this.options.onClientRequest ? forwardedCapabilities(this.options.clientCapabilities) : {};
    const client = new Client({ name: "conduit-mcp-gateway", version: VERSION }, { capabilities: declared });
    const ask = this.options.onClientRequest;
    if (ask) forwardClientRequests(client, declared, (method, params, signal) => ask(method, params, this.#routes.at(-1), signal));
    const transport = this.#createTransport(resume?.sessionId);
    client.fallbackNotificationHandler = async (notification) =>
      this.options.onNotification(notification as unknown as UpstreamNotification);
    // Transport hiccups (a refused GET stream) are not fatal; a lost connection is seen by onclose.
    client.onerror = () => undefined;
    if (resume?.protocolVersion && transport instanceof StreamableHTTPClientTransport) transport.setProtocolVersion(resume.protocolVersion);
    try {
      await client.connect(transport, { timeout: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.close().catch(() => undefined);
      throw new Error("connection closed");
    }
    this.#watchProgress(transport);
    client.onclose = () => this.#drop(client);
    this.#client = client;
    this.#transport = transport;
    const fresh = resume === undefined;
    if (fresh) {
      this.#capabilities = client.getServerCapabilities() as Record<string, unknown> | undefined;
      const sessionId = transport.sessionId;
      const protocolVersion = transport instanceof StreamableHTTPClientTransport ? transport.protocolVersion : undefined;
      this.#resume = sessionId ? { sessionId, ...(protocolVersion ? { protocolVersion } : {}) } : undefined;
      this.options.onSession(
        {
          ...(sessionId ? { sessionId } : {}),
          ...(protocolVersion ? { protocolVersion } : {}),
          ...(this.#capabilities ? { capabilities: this.#capabilities } : {}),
        },
        true,
      );
    } else if (transport instanceof StreamableHTTPClientTransport) {
      // Continuing a session another process opened: its server-initiated stream opens here too
      // (an upstream that allows one stream per session may refuse it while the other is open).
      void transport.resumeStream("").catch(() => undefined);
    }
    return client;
  }

  #createTransport(sessionId: string | undefined): Transport {
    const config = this.options.config;
    if (isHttpUpstream(config)) {
      const own = config.headers ?? {};
      const fetch = upstreamFetch(async () => ({ ...own, ...(await this.options.headers()) }));
      if (config.transport === "sse") return new SSEClientTransport(new URL(config.url), { fetch });
      return new StreamableHTTPClientTransport(new URL(config.url), { fetch, ...(sessionId ? { sessionId } : {}) });
    }
    return new StdioClientTransport({
      command: config.command,
      ...(config.args ? { args: config.args } : {}),
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      // A server's diagnostics are its own; they never interleave with Conduit's log.
      stderr: "ignore",
    });
  }

  #drop(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#transport = undefined;
    void client.close().catch(() => undefined);
  }

  /** Closes the connection; `terminate` also ends the upstream session (HTTP DELETE) — the client ended its session. */
  async close(terminate = false): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    const transport = this.#transport;
    this.#client = undefined;
    this.#transport = undefined;
    if (terminate && transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
    const closing = client?.close().catch(() => undefined);
    // A stdio server may take its time to exit after its stdin closes: nobody waits for it (a
    // DELETE answers at once); an HTTP client's close is immediate and awaited.
    if (!(transport instanceof StdioClientTransport)) await closing;
  }
}
