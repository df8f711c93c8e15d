import type { ServerLifecycleState } from "../../contracts/lifecycle.js";

/** Allowed transitions (docs/design.md §2); any state may go to `error`. */
const TRANSITIONS: Record<ServerLifecycleState, readonly ServerLifecycleState[]> = {
  uninitialized: ["initializing"],
  initializing: ["initialized"],
  initialized: ["starting", "initializing"],
  starting: ["running"],
  running: ["draining"],
  draining: ["stopping"],
  stopping: ["stopped"],
  stopped: ["initializing", "starting"],
  error: ["initializing", "starting", "stopping", "stopped"],
};

export function canTransition(from: ServerLifecycleState, to: ServerLifecycleState): boolean {
  return to === "error" || TRANSITIONS[from].includes(to);
}
