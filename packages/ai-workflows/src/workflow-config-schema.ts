import { ConfigurationError } from "@conduit-ai/server-core";
import { z } from "zod";
import type { AiWorkflowOptions } from "./workflow-options.js";

const positive = z.number().positive("expected a positive number").optional();

/**
 * The `aiWorkflows` config key as an object: the limits of `AiWorkflowOptions` (the mount
 * point stays `/api/ai`), each a positive number, any other key refused.
 */
export const aiWorkflowsConfigSchema = z.strictObject({
  providerTimeoutMs: positive,
  maxOutputTokens: positive,
  maxPromptCharacters: positive,
  benchmarkCallTimeoutMs: positive,
  benchmarkBudgetMs: positive,
});

/**
 * The `aiWorkflows` config key checked: `false` leaves the `/api/ai` endpoints out, an object
 * (or nothing) sets their options. A mistake is a `ConfigurationError` naming the key
 * (`aiWorkflows.providerTimeoutMs: expected a positive number`).
 *
 * @example
 * const options = parseAiWorkflowsConfig(file.aiWorkflows);
 * if (options !== false) server.registerRouteGroup(createAiWorkflowRoutes(runtime, options));
 */
export function parseAiWorkflowsConfig(input: unknown): AiWorkflowOptions | false {
  if (input === false) return false;
  const result = aiWorkflowsConfigSchema.safeParse(input ?? {});
  if (!result.success) throw ConfigurationError.ofZod(result.error, "aiWorkflows");
  return result.data;
}
