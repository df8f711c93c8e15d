import { ConfigurationError, type RouteDefinition, type RouteGroup } from "@conduit-ai/server-core";
import { anthropicErrorShape } from "../wire/anthropic-messages/error-shape.js";
import { openaiErrorShape } from "../wire/openai-chat/error-shape.js";
import { createAccountsRoute } from "./accounts/accounts-route.js";
import { createLimitsRoute } from "./accounts/limits-route.js";
import { headersOf, searchOf } from "./client-request.js";
import { createCountTokensRoute } from "./messages/count-tokens-route.js";
import { createMessagesRoute } from "./messages/messages-route.js";
import { createBaseUrlProbeRoutes } from "./probes/client-probes.js";
import type { ProxyRouteDeps } from "./route-deps.js";

export type { ProxyRouteDeps };

/** The proxy's route groups for the surfaces asked for. */
export function createProxyRouteGroups(
  deps: ProxyRouteDeps,
  surfaces: { messages: boolean; chatCompletions: boolean },
  chatCompletions?: RouteDefinition | RouteDefinition[],
): RouteGroup[] {
  const routes: RouteDefinition[] = [];
  if (surfaces.messages) routes.push(createMessagesRoute(deps), createLimitsRoute(deps), createAccountsRoute(deps));
  // `HEAD /` (Claude Code's connectivity check) and `HEAD /v1` answer 204 at once.
  if (surfaces.messages || surfaces.chatCompletions) routes.push(...createBaseUrlProbeRoutes());
  if (surfaces.messages && deps.relayCountTokens)
    routes.push(
      createCountTokensRoute({
        relay: deps.relayCountTokens,
        isClientAllowed: deps.isClientAllowed,
        admission: deps.admission,
        headersOf,
        searchOf,
      }),
    );
  // A surface asked for is mounted or refused at setup, never silently left out.
  if (surfaces.chatCompletions) {
    if (!chatCompletions)
      throw new ConfigurationError(
        "POST /v1/chat/completions needs the chatCompletions routes (createProxy's chatCompletions option, e.g. chatCompletionsFor(runtime))",
      );
    routes.push(...[chatCompletions].flat());
  }
  // Conduit's own errors on these paths (unknown /v1 routes, auth, limits, timeouts) speak the vendors' shapes.
  return routes.length > 0 ? [{ prefix: "", routes, tags: ["proxy"], errorShapes: [anthropicErrorShape, openaiErrorShape] }] : [];
}
