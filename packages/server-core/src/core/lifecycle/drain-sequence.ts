import type { RequiredServerAdapterConfig } from "../../contracts/config.js";
import type { ServerLifecycleState } from "../../contracts/lifecycle.js";
import type { RequestHandler } from "../pipeline/request-handler.js";
import type { ServerTransport } from "./server-transport.js";
import { within } from "../pipeline/within.js";

export type BeforeCloseHook = (context: { drainTimeoutMs: number }) => Promise<void> | void;

/** How long streams interrupted by the shutdown get to deliver their final event before sockets are destroyed. */
const FINAL_EVENT_GRACE_MS = 1_000;

/** What one graceful stop works on; `transport` is undefined when a host app owns the server. */
export interface DrainSteps {
  handler: RequestHandler;
  shutdown: RequiredServerAdapterConfig["shutdown"];
  transport: ServerTransport | undefined;
  beforeClose: Iterable<BeforeCloseHook>;
  /** Moves the lifecycle on (`draining`, then `stopping`). */
  transition(to: ServerLifecycleState): void;
  /** Records what failed to close; the sequence goes on closing everything else. */
  fail(error: unknown): void;
}

/**
 * The graceful stop's choreography: refuse new connections, answer new requests on open
 * keep-alive sockets with 503 + `Connection: close` while in-flight requests and streams finish
 * within `drainTimeoutMs`; streams still running then get a final `error` event
 * (`SERVER_SHUTTING_DOWN`) and the rest is force-closed (if `forceClose`). The whole sequence
 * never exceeds `gracefulShutdownTimeoutMs`.
 *
 * @example
 * await drainAndClose({ handler, shutdown: config.shutdown, transport, beforeClose: hooks, transition, fail });
 */
export async function drainAndClose(steps: DrainSteps): Promise<void> {
  const { handler, transport, fail } = steps;
  const { drainTimeoutMs, gracefulShutdownTimeoutMs, forceClose } = steps.shutdown;
  const deadline = Date.now() + gracefulShutdownTimeoutMs;
  const remaining = () => Math.max(0, deadline - Date.now());
  const hookTimeoutMs = Math.min(drainTimeoutMs, gracefulShutdownTimeoutMs);
  steps.transition("draining");
  handler.draining = true;
  const closed = transport ? transport.stopListening() : Promise.resolve();
  const hookList = [...steps.beforeClose];
  // Surfaces holding their own sockets (WebSocket) close them while HTTP drains.
  const hooks = Promise.all(
    hookList.map((hook) =>
      Promise.resolve()
        .then(() => hook({ drainTimeoutMs: hookTimeoutMs }))
        .catch(fail),
    ),
  );

  const drained = await within(handler.whenIdle(), hookTimeoutMs);
  steps.transition("stopping");
  // Without forceClose, wait for the work up to the deadline, keeping a moment for the final events of open streams.
  const finalEventGrace = Math.min(FINAL_EVENT_GRACE_MS, gracefulShutdownTimeoutMs / 4);
  if (drained === "timeout" && !forceClose) {
    await within(handler.whenIdle(), remaining() - (handler.openStreamCount > 0 ? finalEventGrace : 0));
  }
  if (handler.openStreamCount > 0) {
    // Streams still running get their last word (an `error` event) before their sockets go.
    handler.interruptStreams();
    await within(handler.whenIdle(), Math.min(finalEventGrace, remaining()));
  }
  // Before any socket is ended: the hooks close theirs properly (WebSocket close frames).
  if (hookList.length > 0) await within(hooks, remaining());
  if (handler.inFlightCount === 0) {
    // Every response is written: end the (now idle) sockets gently so buffered bytes still reach clients.
    transport?.endConnections();
    await within(closed, Math.min(1_000, remaining()));
  }
  transport?.destroyConnections();
  await within(closed, remaining());
}
