import type { RpcResponse } from "../jsonrpc/json-rpc-message.js";
import type { LiveSessions } from "./live-sessions.js";

/** What the relay needs of an ioredis client (`Redis` or `Cluster`): publish, and a second connection to subscribe on. */
interface PubSubClient {
  publish(channel: string, message: string): Promise<unknown>;
  /** ioredis: `Redis.duplicate(options)`, `Cluster.duplicate(startupNodes, options)`. */
  duplicate(...override: unknown[]): PubSubSubscriber;
  /** Set on an ioredis `Cluster`. */
  isCluster?: boolean;
}

interface PubSubSubscriber {
  subscribe(channel: string): Promise<unknown>;
  on(event: "message", listener: (channel: string, message: string) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "ready", listener: () => void): unknown;
  disconnect(): void;
}

function isPubSubClient(client: unknown): client is PubSubClient {
  const candidate = client as Partial<PubSubClient> | null;
  return typeof candidate?.publish === "function" && typeof candidate.duplicate === "function";
}

/** One relayed message: a cancellation, a client's answer to a server's request, or a client notification for every server. */
type Relayed =
  | { session: string; requestId: string }
  | { session: string; response: RpcResponse }
  | { session: string; notification: string };

/**
 * What a client posts that concerns work another process is doing (sessions on Redis behind a load
 * balancer): a `notifications/cancelled` of a call served there, the client's answer to a request a
 * server made of it through there (sampling, elicitation, roots), a roots change every server
 * connected there must hear. Published on one channel; each process applies what is its own.
 * Without a Redis client able to publish, all of it stays in the process.
 *
 * @example
 * const relay = SessionRelay.over(redis, "conduit:mcp:relay", sessions);
 * if (!cancelledHere) relay?.publishCancel(sessionId, requestId);
 */
export class SessionRelay {
  static over(client: unknown, channel: string, sessions: LiveSessions): SessionRelay | undefined {
    return isPubSubClient(client) ? new SessionRelay(client, channel, sessions) : undefined;
  }

  readonly #subscriber: PubSubSubscriber;

  private constructor(
    private readonly client: PubSubClient,
    private readonly channel: string,
    sessions: LiveSessions,
  ) {
    // The relay subscribes again itself after each reconnection (below): ioredis's own resubscribe
    // runs on "ready" without a catch, and with the server's fail-fast clients (no offline queue) a
    // connection lost again at once made it an unhandled rejection.
    this.#subscriber = client.isCluster
      ? client.duplicate([], { redisOptions: { autoResubscribe: false } })
      : client.duplicate({ autoResubscribe: false });
    // A lost subscriber reconnects on its own (ioredis); meanwhile cancellations stay local.
    this.#subscriber.on("error", () => undefined);
    this.#subscriber.on("message", (from, message) => {
      if (from !== channel) return;
      try {
        const relayed = JSON.parse(message) as Partial<Record<string, unknown>>;
        const live = typeof relayed.session === "string" ? sessions.get(relayed.session) : undefined;
        if (!live) return;
        if (typeof relayed.requestId === "string") live.inflight.get(relayed.requestId)?.abort(new Error("cancelled by the client"));
        else if (typeof relayed.response === "object" && relayed.response !== null) live.answerClient(relayed.response as RpcResponse);
        else if (relayed.notification === "notifications/roots/list_changed") void live.notifyUpstreams(relayed.notification);
      } catch {
        // Not ours.
      }
    });
    // The server's clients queue nothing while connecting (fail fast): subscribe once ready, and
    // again after every reconnection.
    const subscribe = () => void this.#subscriber.subscribe(channel).catch(() => undefined);
    this.#subscriber.on("ready", subscribe);
    subscribe();
  }

  publishCancel(session: string, requestId: string): void {
    this.#publish({ session, requestId });
  }

  publishResponse(session: string, response: RpcResponse): void {
    this.#publish({ session, response });
  }

  publishNotification(session: string, notification: string): void {
    this.#publish({ session, notification });
  }

  #publish(relayed: Relayed): void {
    void this.client.publish(this.channel, JSON.stringify(relayed)).catch(() => undefined);
  }

  close(): void {
    this.#subscriber.disconnect();
  }
}
