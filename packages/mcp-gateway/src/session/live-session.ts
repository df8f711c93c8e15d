import type { GateGuardrailHit, GateIdentity } from "@conduit-ai/server-core";
import type { UpstreamServerConfig } from "../config/upstream-config.js";
import { guardedLogMessage } from "../dispatch/notification-guard.js";
import type { McpToolGuard } from "../dispatch/tool-guard.js";
import { clientNotification } from "../dispatch/upstream-notifications.js";
import type { UpstreamNotification } from "../upstream/upstream-connection.js";
import { MessageChannel } from "../http/message-channel.js";
import type { TokenExchanger } from "../auth/token-exchange.js";
import { UpstreamConnection } from "../upstream/upstream-connection.js";
import { type CallerToken, upstreamHeaders } from "../upstream/upstream-credentials.js";
import type { RpcResponse } from "../jsonrpc/json-rpc-message.js";
import { type ClientRoute, ClientRequests } from "./client-requests.js";
import type { McpSessionRecord, McpSessionStore } from "./session-store.js";

export interface LiveSessionDependencies {
  servers: ReadonlyMap<string, UpstreamServerConfig>;
  timeoutMs: number;
  store: McpSessionStore;
  exchangers: ReadonlyMap<string, TokenExchanger>;
  /** Checks the servers' log messages before the client gets them (the gateway's `toolGuard`). */
  toolGuard?: McpToolGuard | undefined;
  /** Warnings (a write of the session that failed); never a secret. */
  onWarning(message: string): void;
}

/**
 * A client session as this process serves it: its upstream connections (opened on first use,
 * continuing the upstream sessions another process recorded), the requests in flight (to cancel),
 * and the GET stream its notifications go to. Rebuilt from the store on any process.
 */
export class LiveSession {
  readonly id: string;
  record: McpSessionRecord;
  lastUsed = Date.now();
  /** The caller's OAuth token of the latest request (forward and exchange servers use it). */
  callerToken: CallerToken = {};
  /** The caller's virtual key identity of the latest request: its guardrail lists apply to the servers' log messages. */
  callerIdentity: GateIdentity | undefined;
  readonly inflight = new Map<string, AbortController>();
  #stream: MessageChannel | undefined;
  /** Where the guardrail hits of the GET stream's messages go (that request's live feed entry and span). */
  #recordStreamHits: ((hits: GateGuardrailHit[]) => void) | undefined;
  /** Server notifications in order: a log message being checked holds back the ones after it. */
  #notifications: Promise<void> = Promise.resolve();
  readonly #connections = new Map<string, UpstreamConnection>();
  /** Requests upstream servers made of the client, waiting for its answer. */
  readonly #clientRequests: ClientRequests;
  /** The GET stream as a route for a server's request: taken only while it is open. */
  readonly #streamRoute: ClientRoute = (message) => {
    if (!this.#stream || this.#stream.closed) return false;
    this.#stream.push(message);
    return true;
  };

  constructor(
    record: McpSessionRecord,
    private readonly dependencies: LiveSessionDependencies,
  ) {
    this.id = record.id;
    this.record = record;
    this.#clientRequests = new ClientRequests(dependencies.timeoutMs);
  }

  get streamOpen(): boolean {
    return this.#stream !== undefined && !this.#stream.closed;
  }

  /** The connection to `server` (created, not yet connected, on first use). */
  connection(server: string): UpstreamConnection {
    let connection = this.#connections.get(server);
    if (connection) return connection;
    const config = this.dependencies.servers.get(server) as UpstreamServerConfig;
    connection = new UpstreamConnection({
      server,
      config,
      timeoutMs: this.dependencies.timeoutMs,
      headers: upstreamHeaders(server, config, () => this.callerToken, this.dependencies.exchangers),
      resume: this.record.upstream[server],
      clientCapabilities: this.record.clientCapabilities,
      // A server's request goes on the stream of the call it serves, else on the GET stream.
      onClientRequest: (method, params, route, signal) =>
        this.#clientRequests.ask(method, params, route ? [route, this.#streamRoute] : [this.#streamRoute], signal),
      onNotification: (notification) => this.#notify(server, notification),
      onSession: (state, fresh) => {
        this.record.upstream[server] = state;
        this.#store(() => this.dependencies.store.setUpstream(this.id, server, state));
        if (fresh) void this.#restore(server);
      },
    });
    this.#connections.set(server, connection);
    return connection;
  }

  /** A fresh upstream session knows nothing of this client's: its subscriptions and log level are applied again. */
  async #restore(server: string): Promise<void> {
    const connection = this.#connections.get(server);
    if (!connection) return;
    const prefix = `${server}__`;
    const work: Array<Promise<unknown>> = this.record.subscriptions
      .filter((uri) => uri.startsWith(prefix))
      .map((uri) => connection.request("resources/subscribe", { uri: uri.slice(prefix.length) }));
    if (this.record.logLevel && connection.capabilities?.logging)
      work.push(connection.request("logging/setLevel", { level: this.record.logLevel }));
    await Promise.allSettled(work);
  }

  /** A server's notification to the GET stream; with a guard, in order behind the log messages being checked. */
  #notify(server: string, notification: UpstreamNotification): void {
    const guard = this.dependencies.toolGuard;
    if (!guard) {
      const message = clientNotification(server, notification);
      if (message) this.#stream?.push(message);
      return;
    }
    this.#notifications = this.#notifications
      .then(async () => {
        const { method, params } = notification;
        const checked =
          method === "notifications/message" && params
            ? {
                method,
                params: await guardedLogMessage(
                  guard,
                  params,
                  // A server's own message: no tool; the server is what a webhook is told it came from.
                  { server, tool: "", namespacedName: server, identity: this.callerIdentity },
                  (hits) => this.#recordStreamHits?.(hits),
                ),
              }
            : notification;
        const message = clientNotification(server, checked);
        if (message) this.#stream?.push(message);
      })
      .catch((error: Error) => this.dependencies.onWarning(`mcp-gateway: a log message of ${server} was not checked (${error.message})`));
  }

  #store(write: () => Promise<void>): void {
    write().catch((error: Error) =>
      this.dependencies.onWarning(`mcp-gateway: session ${this.id.slice(0, 8)}… not updated (${error.message})`),
    );
  }

  /** The GET stream's channel; a second stream on this process replaces the first (its client reconnected). */
  openStream(recordHits?: (hits: GateGuardrailHit[]) => void): MessageChannel {
    this.#stream?.close();
    const channel = new MessageChannel();
    this.#stream = channel;
    this.#recordStreamHits = recordHits;
    return channel;
  }

  /** The client's answer to a server's request; false when no call on this process waits for it. */
  answerClient(response: RpcResponse): boolean {
    return this.#clientRequests.settle(response);
  }

  /** A client notification every server connected here gets (`notifications/roots/list_changed`). */
  async notifyUpstreams(method: string): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.notify(method)));
  }

  /** Servers connected on this process. */
  connectedServers(): string[] {
    return [...this.#connections.entries()].filter(([, connection]) => connection.connected).map(([server]) => server);
  }

  async close(terminate: boolean): Promise<void> {
    this.#stream?.close();
    this.#stream = undefined;
    for (const controller of this.inflight.values()) controller.abort(new Error("session closed"));
    this.inflight.clear();
    this.#clientRequests.close();
    const connections = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(connections.map((connection) => connection.close(terminate)));
  }
}
