import type { Runtime } from "@conduit-ai/server-core";
import { createAnthropicTarget } from "../targets/anthropic/anthropic-target.js";
import type { RelayMessages } from "../targets/anthropic/messages-relay.js";
import { createRuntimeTarget } from "../targets/runtime/runtime-target.js";
import type { Target } from "../targets/target.js";
import type { RouteTarget } from "./model-table.js";

/** Every upstream a routing name can reach, by the kind the `models` table gives the name. */
export type ProxyTargets = Readonly<Record<RouteTarget["kind"], Target>>;

/**
 * A proxy's targets: the Messages API through the pool (`anthropic/<model>`, Claude names) and
 * the runtime's providers (every other name; without a runtime each is a 404 naming the model).
 *
 * @example
 * const targets = createTargets({ relayMessages, runtime });
 */
export function createTargets(options: { relayMessages: RelayMessages; runtime?: Runtime | undefined }): ProxyTargets {
  return { anthropic: createAnthropicTarget(options.relayMessages), runtime: createRuntimeTarget(options.runtime) };
}

/**
 * The one resolution of a routing name to the target that serves it, for every surface.
 *
 * @example
 * const answer = await targetOf(targets, route).serve(call);
 */
export function targetOf(targets: ProxyTargets, route: RouteTarget): Target {
  return targets[route.kind];
}
