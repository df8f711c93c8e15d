import type { MiddlewareDefinition, RedactionConfig } from "@conduit-ai/server-core";
import { addStreamEventTransform, createStreamRedactor } from "@conduit-ai/server-core/web";

/**
 * Redaction for the streams of some routes only (global redaction is `config.redaction`,
 * applied by the core on every adapter). It registers the same event-level redactor the
 * core uses, so both paths behave identically; disabled → a pass-through.
 *
 * @example
 * adapter.registerMiddleware({ ...createStreamRedactionMiddleware({ enabled: true }), paths: ["/api/agent/*"] });
 */
export function createStreamRedactionMiddleware(config: RedactionConfig = {}): MiddlewareDefinition {
  const redactor = createStreamRedactor(config);
  return {
    name: "stream-redaction",
    order: 90,
    handler: async (ctx, next) => {
      if (redactor) addStreamEventTransform(ctx, redactor);
      await next();
    },
  };
}
