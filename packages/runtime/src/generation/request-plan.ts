import type { ClientToolDefinition, ConversationMessage, GenerateRequest, RuntimeCallContext } from "@conduit-ai/server-core";
import type { ConversationStore } from "../memory/conversation-store.js";
import type { ProviderRegistry } from "../providers/provider-registry.js";
import { invalidField } from "../runtime-errors.js";
import type { RuntimeTool } from "../tools/runtime-tool.js";
import type { RuntimeToolRegistry } from "../tools/tool-registry.js";
import type { GenerationPlan } from "./generation-part.js";

export interface PlanDependencies {
  providers: ProviderRegistry;
  tools: RuntimeToolRegistry;
  memory: ConversationStore;
  resolveText: (request: GenerateRequest) => string;
  maxRetries: number;
  /** The AI SDK's `timeout` per call; undefined waits forever. */
  timeout: { stepMs: number; chunkMs: number } | undefined;
  maxSteps: number;
  historyLimit: number;
}

/**
 * Tools a request enables: none by default, all with `true`, or the named ones (unknown → 400).
 * Tools needing confirmation are left out, since nobody can confirm inside a generation.
 */
function selectTools(registry: RuntimeToolRegistry, selection: GenerateRequest["tools"]): RuntimeTool[] {
  if (selection === undefined || selection === false) return [];
  const all = registry.resolveAll().filter((tool) => !tool.info.requiresConfirmation);
  if (selection === true) return all;
  const unknown = selection.filter((name) => !all.some((tool) => tool.info.name === name));
  if (unknown.length > 0) throw invalidField("tools", `Unknown or unavailable tools: ${unknown.join(", ")}`);
  return all.filter((tool) => selection.includes(tool.info.name));
}

/**
 * Validates a request synchronously — so `stream()` can throw a 400 before any event is sent —
 * and gathers what the engines need except the session history.
 */
/** The last user turn's text of a conversation: what memory records and usage estimates read. */
function lastUserText(messages: ConversationMessage[]): string {
  const last = messages.findLast((message) => message.role === "user");
  if (last === undefined || last.role !== "user") return "";
  return typeof last.content === "string" ? last.content : last.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** Caller-run tools: each a name and a JSON Schema, names unique and distinct from the registry's. */
function checkClientTools(tools: ClientToolDefinition[] | undefined, registered: RuntimeTool[]): ClientToolDefinition[] {
  if (tools === undefined) return [];
  const names = new Set<string>();
  tools.forEach((tool, index) => {
    if (typeof tool?.name !== "string" || tool.name === "") throw invalidField(`clientTools[${index}].name`, "A tool needs a name");
    if (names.has(tool.name) || registered.some((known) => known.info.name === tool.name))
      throw invalidField(`clientTools[${index}].name`, `Duplicate tool name ${tool.name}`);
    names.add(tool.name);
  });
  return tools;
}

function optionalFields(request: GenerateRequest) {
  return {
    ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
    ...(request.responseFormat === undefined ? {} : { responseFormat: request.responseFormat }),
    ...(request.stopSequences === undefined ? {} : { stopSequences: request.stopSequences }),
    ...(request.topP === undefined ? {} : { topP: request.topP }),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...(request.frequencyPenalty === undefined ? {} : { frequencyPenalty: request.frequencyPenalty }),
    ...(request.presencePenalty === undefined ? {} : { presencePenalty: request.presencePenalty }),
  };
}

export function planGeneration(request: GenerateRequest, context: RuntimeCallContext, dependencies: PlanDependencies): GenerationPlan {
  const conversation = request.messages;
  if (conversation !== undefined && (!Array.isArray(conversation) || conversation.length === 0))
    throw invalidField("messages", "messages must be a non-empty array");
  const text = conversation === undefined ? dependencies.resolveText(request) : lastUserText(conversation);
  const { provider, model } = dependencies.providers.resolve("text", request.provider, request.model);
  const tools = selectTools(dependencies.tools, request.tools);
  const history: GenerationPlan["history"] = [];
  const maxSteps = request.maxSteps ?? dependencies.maxSteps;
  if (!Number.isInteger(maxSteps) || maxSteps < 1 || maxSteps > 20)
    throw invalidField("maxSteps", "maxSteps must be an integer from 1 to 20");
  const clientTools = checkClientTools(request.clientTools, tools);
  return {
    text,
    ...(request.system === undefined ? {} : { system: request.system }),
    history,
    ...(conversation === undefined ? {} : { conversation }),
    clientTools,
    ...optionalFields(request),
    provider,
    model,
    tools,
    maxSteps,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
    maxRetries: dependencies.maxRetries,
    ...(dependencies.timeout === undefined ? {} : { timeout: dependencies.timeout }),
    context,
    executeTool: async (name, args, callContext) => (await dependencies.tools.execute(name, args, callContext)).result,
  };
}

/** Loads the session history into a validated plan. */
export async function withHistory(
  plan: GenerationPlan,
  sessionId: string | undefined,
  dependencies: PlanDependencies,
): Promise<GenerationPlan> {
  // A caller that sends the whole conversation has no use for the session's copy of it.
  if (sessionId === undefined || plan.conversation !== undefined) return plan;
  return { ...plan, history: await dependencies.memory.history(sessionId, dependencies.historyLimit) };
}
