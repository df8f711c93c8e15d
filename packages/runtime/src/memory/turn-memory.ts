/**
 * A generation's use of the conversation memory: the history read before the model is asked,
 * the turn recorded after it answered, and what either does when the store is down
 * (`memory.onUnavailable`). Kept apart from the runtime so `generate` and `stream` share one
 * outage policy.
 */
import { type DataStreamEvent, type Logger, StoreUnavailableError, isStoreUnavailable } from "@conduit-ai/server-core";
import type { GenerationPlan } from "../generation/generation-part.js";
import { type PlanDependencies, withHistory } from "../generation/request-plan.js";
import type { ConversationStore } from "./conversation-store.js";
import type { MemoryUnavailablePolicy } from "./memory-options.js";

/** A stream's `finish` event saying the conversation memory could not be read or the turn not kept. */
export function withMemoryUnavailable(finish: DataStreamEvent): DataStreamEvent {
  return { ...finish, data: { ...(finish.data as object), memory: "unavailable" } };
}

/** 503 `STORE_UNAVAILABLE` naming the memory store (its cause stays server-side). */
function memoryUnavailable(error: unknown): StoreUnavailableError {
  return isStoreUnavailable(error) ? error : new StoreUnavailableError("memory", { cause: error });
}

/** Reads and records a session's turns under the runtime's `onUnavailable` policy. */
export class TurnMemory {
  readonly #store: ConversationStore;
  readonly #policy: MemoryUnavailablePolicy;
  readonly #logger: Logger;
  readonly #dependencies: PlanDependencies;

  constructor(store: ConversationStore, policy: MemoryUnavailablePolicy, logger: Logger, dependencies: PlanDependencies) {
    this.#store = store;
    this.#policy = policy;
    this.#logger = logger;
    this.#dependencies = dependencies;
  }

  /**
   * With the store down (Redis unreachable) and `memory.onUnavailable: "degrade"` (the default)
   * the call runs without history and the turn is not recorded: a warning says so, and so does
   * the result (`memory: "unavailable"`). With `"fail"` the call is refused with 503
   * `STORE_UNAVAILABLE` before the model is asked. `unavailable` is false when the store answered.
   */
  async withHistory(plan: GenerationPlan, sessionId: string | undefined): Promise<{ plan: GenerationPlan; unavailable: boolean }> {
    try {
      return { plan: await withHistory(plan, sessionId, this.#dependencies), unavailable: false };
    } catch (error) {
      if (this.#policy === "fail") throw memoryUnavailable(error);
      this.#logger.warn({ err: error, sessionId }, "conversation memory unavailable: generating without history");
      return { plan, unavailable: true };
    }
  }

  /** Records the turn; false when the store could not (with `"fail"`, a 503 instead). */
  async remember(sessionId: string | undefined, text: string, content: string): Promise<boolean> {
    if (sessionId === undefined) return true;
    const timestamp = new Date().toISOString();
    try {
      await this.#store.append(sessionId, [
        { role: "user", content: text, timestamp },
        { role: "assistant", content, timestamp: new Date().toISOString() },
      ]);
      return true;
    } catch (error) {
      // "fail" promises no answer the conversation does not keep: the client retries the whole turn.
      if (this.#policy === "fail") throw memoryUnavailable(error);
      this.#logger.warn({ err: error, sessionId }, "conversation memory unavailable: turn not recorded");
      return false;
    }
  }
}
