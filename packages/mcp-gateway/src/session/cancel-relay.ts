import type { LiveSessions } from "./live-sessions.js";

/** What a cancellation relay needs of an ioredis client (`Redis` or `Cluster`): publish, and a second connection to subscribe on. */
interface PubSubClient {
  publish(channel: string, message: string): Promise<unknown>;
  duplicate(): PubSubSubscriber;
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

/**
 * A client's `notifications/cancelled` for a call another process is serving (sessions on Redis
 * behind a load balancer): published on one channel, and every process aborts the call if it is
 * its own. Without a Redis client able to publish, cancellations stay in the process.
 *
 * @example
 * const relay = CancelRelay.over(redis, "conduit:mcp:cancel", sessions);
 * if (!cancelledHere) relay?.publish(sessionId, requestId);
 */
export class CancelRelay {
  static over(client: unknown, channel: string, sessions: LiveSessions): CancelRelay | undefined {
    return isPubSubClient(client) ? new CancelRelay(client, channel, sessions) : undefined;
  }

  readonly #subscriber: PubSubSubscriber;

  private constructor(
    private readonly client: PubSubClient,
    private readonly channel: string,
    sessions: LiveSessions,
  ) {
    this.#subscriber = client.duplicate();
    // A lost subscriber reconnects on its own (ioredis); meanwhile cancellations stay local.
    this.#subscriber.on("error", () => undefined);
    this.#subscriber.on("message", (from, message) => {
      if (from !== channel) return;
      try {
        const { session, requestId } = JSON.parse(message) as { session?: unknown; requestId?: unknown };
        if (typeof session === "string" && typeof requestId === "string")
          sessions.get(session)?.inflight.get(requestId)?.abort(new Error("cancelled by the client"));
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

  publish(session: string, requestId: string): void {
    void this.client.publish(this.channel, JSON.stringify({ session, requestId })).catch(() => undefined);
  }

  close(): void {
    this.#subscriber.disconnect();
  }
}
