import type { ConversationStore } from "./conversation-store.js";

/**
 * What a call with a `sessionId` does when the conversation store cannot be reached:
 * `degrade` (default) answers without the history, does not record the turn, and says so
 * (`GenerateResult.memory: "unavailable"`); `fail` refuses with 503 `STORE_UNAVAILABLE`.
 */
export type MemoryUnavailablePolicy = "degrade" | "fail";

/** `RuntimeOptions.memory` in its object form. */
export interface MemoryOptions {
  /** A custom store (wins over `redis`). */
  store?: ConversationStore;
  /** Default `degrade`. */
  onUnavailable?: MemoryUnavailablePolicy;
}

const isStore = (value: ConversationStore | MemoryOptions): value is ConversationStore =>
  typeof (value as ConversationStore).append === "function";

/**
 * `RuntimeOptions.memory` read either way: a store (the earlier form) or `{store?, onUnavailable?}`.
 *
 * @example
 * memoryOptionsOf({ onUnavailable: "fail" }); // { store: undefined, onUnavailable: "fail" }
 */
export function memoryOptionsOf(option: ConversationStore | MemoryOptions | undefined): {
  store: ConversationStore | undefined;
  onUnavailable: MemoryUnavailablePolicy;
} {
  if (option === undefined) return { store: undefined, onUnavailable: "degrade" };
  if (isStore(option)) return { store: option, onUnavailable: "degrade" };
  const onUnavailable = option.onUnavailable ?? "degrade";
  if (onUnavailable !== "degrade" && onUnavailable !== "fail")
    throw new TypeError(`memory.onUnavailable must be "degrade" or "fail", got ${JSON.stringify(onUnavailable)}`);
  return { store: option.store, onUnavailable };
}
