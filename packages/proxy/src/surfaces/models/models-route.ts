import { type RouteDefinition, type Runtime, type ServerContext, rawResponse } from "@conduit-ai/server-core";
import type { ClientAdmission } from "../../admission/client-admission.js";
import { anthropicError } from "../../wire/anthropic-messages/errors.js";
import { OpenAIWireError } from "../../wire/openai-chat/openai-wire-error.js";
import { type ClaudeModel, DEFAULT_CLAUDE_MODELS } from "./claude-models.js";
import { clientKeyRefusal } from "../../admission/client-auth.js";
import type { RouteTarget } from "../../routing/model-table.js";

export interface ModelsRouteOptions {
  isClientAllowed: (ctx: ServerContext) => boolean;
  /** Non-Claude models: every available provider's models, as `<provider>/<model>`, and the bare provider names. */
  runtime?: Runtime;
  /** Claude models to list (default `DEFAULT_CLAUDE_MODELS`). */
  claudeModels?: readonly ClaudeModel[];
  /** Public names of the `models` routing table, listed as models of their own. */
  aliases?: () => readonly string[];
  /**
   * Whether the pool has an Anthropic account (default true): without one no Claude model is
   * listed, and no routing name whose every target goes to the pool.
   */
  servesClaude?: boolean;
  /** A routing name's targets: with it, a name is listed only when one of its targets can be served. */
  targetsOf?: (alias: string) => readonly RouteTarget[] | undefined;
  /** The proxy's admission: the caller is checked (and counted) like any other call; nothing is reserved. */
  admission?: ClientAdmission;
}

/** Whether the caller may list models: the proxy's admission when given (released at once), else the client check. */
async function admitted(options: ModelsRouteOptions, ctx: ServerContext): Promise<boolean> {
  if (!options.admission) return options.isClientAllowed(ctx);
  options.admission.precheck(ctx);
  const admission = await options.admission.admit(ctx, { surface: wantsAnthropic(ctx) ? "anthropic" : "openai", estimatedInputTokens: 0 });
  admission.release();
  return true;
}

interface ListedModel {
  id: string;
  displayName: string;
  created: number;
  ownedBy: string;
}

/**
 * What this gateway can serve: the Claude models when the pool has an Anthropic account, every
 * available runtime provider (bare, its default model) and its models, and the routing names
 * one of whose targets is among them.
 */
async function listModels(options: ModelsRouteOptions): Promise<ListedModel[]> {
  const servesClaude = options.servesClaude ?? true;
  const providers = ((await options.runtime?.listProviders()) ?? []).filter((provider) => provider.available);
  const listed: ListedModel[] = (servesClaude ? (options.claudeModels ?? DEFAULT_CLAUDE_MODELS) : []).map((model) => ({
    id: model.id,
    displayName: model.displayName,
    created: Math.floor(Date.parse(model.createdAt) / 1000),
    ownedBy: "anthropic",
  }));
  const servable = (target: RouteTarget) => {
    if (target.kind === "anthropic") return servesClaude;
    const [provider, model] = target.model.includes("/") ? target.model.split("/", 2) : [undefined, target.model];
    if (provider !== undefined) return providers.some((candidate) => candidate.name === provider);
    return providers.some((candidate) => candidate.name === model || candidate.models.includes(model ?? ""));
  };
  for (const alias of options.aliases?.() ?? []) {
    const targets = options.targetsOf?.(alias);
    if (targets === undefined || targets.some(servable)) listed.push({ id: alias, displayName: alias, created: 0, ownedBy: "conduit" });
  }
  for (const provider of providers) {
    listed.push({ id: provider.name, displayName: `${provider.name} (default model)`, created: 0, ownedBy: provider.name });
    for (const model of provider.models)
      listed.push({ id: `${provider.name}/${model}`, displayName: model, created: 0, ownedBy: provider.name });
  }
  const seen = new Set<string>();
  return listed.filter((model) => !seen.has(model.id) && seen.add(model.id));
}

const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

const asOpenAI = (model: ListedModel) => ({ id: model.id, object: "model", created: model.created, owned_by: model.ownedBy });
const asAnthropic = (model: ListedModel) => ({
  type: "model",
  id: model.id,
  display_name: model.displayName,
  created_at: isoOf(model.created),
});

const json = (body: unknown) => rawResponse(JSON.stringify(body), { headers: { "content-type": "application/json" } });

/** Anthropic's SDK sends `anthropic-version` on every call; OpenAI's never does. */
const wantsAnthropic = (ctx: ServerContext) => ctx.header("anthropic-version") !== undefined;

function refused(ctx: ServerContext) {
  if (wantsAnthropic(ctx)) return anthropicError(401, "authentication_error", clientKeyRefusal(ctx));
  return new OpenAIWireError(401, clientKeyRefusal(ctx), "invalid_request_error", null, "invalid_api_key").toResponse();
}

/**
 * `GET /v1/models` and `GET /v1/models/{id}`: what the gateway can serve — the Claude models
 * (with an Anthropic account in the pool), the runtime's available providers and their models,
 * and the routing names that reach one of them — in OpenAI's list shape — or Anthropic's (`data`,
 * `has_more`, `first_id`, `last_id`) when the request carries `anthropic-version`.
 *
 * @example
 * for (const route of createModelsRoutes({ isClientAllowed, runtime })) adapter.registerRoute(route);
 */
export function createModelsRoutes(options: ModelsRouteOptions): RouteDefinition[] {
  const list: RouteDefinition = {
    method: "GET",
    path: "/v1/models",
    absolute: true,
    summary: "Models this gateway serves (OpenAI or Anthropic list shape)",
    ...(options.admission ? { rateLimit: false as const } : {}),
    tags: ["proxy"],
    handler: async (ctx) => {
      if (!(await admitted(options, ctx))) return refused(ctx);
      const models = await listModels(options);
      if (!wantsAnthropic(ctx)) return json({ object: "list", data: models.map(asOpenAI) });
      const claude = models.map(asAnthropic);
      return json({ data: claude, has_more: false, first_id: claude[0]?.id ?? null, last_id: claude.at(-1)?.id ?? null });
    },
  };
  const one: RouteDefinition = {
    method: "GET",
    path: "/v1/models/:id",
    absolute: true,
    summary: "One model this gateway serves",
    ...(options.admission ? { rateLimit: false as const } : {}),
    tags: ["proxy"],
    handler: async (ctx) => {
      if (!(await admitted(options, ctx))) return refused(ctx);
      const id = ctx.params.id ?? "";
      const model = (await listModels(options)).find((candidate) => candidate.id === id);
      if (model) return json(wantsAnthropic(ctx) ? asAnthropic(model) : asOpenAI(model));
      if (wantsAnthropic(ctx)) return anthropicError(404, "not_found_error", `model: ${id}`);
      return new OpenAIWireError(404, `The model '${id}' does not exist`, "invalid_request_error", "model", "model_not_found").toResponse();
    },
  };
  return [list, one];
}
