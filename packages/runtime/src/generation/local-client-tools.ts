import type { ClientToolDefinition, ConversationMessage, ToolCallRecord } from "@conduit-ai/server-core";
import type { GenerationPlan } from "./generation-part.js";

type Schema = { type?: unknown; properties?: Record<string, Schema>; required?: unknown; items?: Schema; enum?: unknown[] };

/** A value of the schema's shape built from the text: strings carry it, numbers 0, booleans false. */
export function valueFromSchema(schema: Schema | undefined, text: string): unknown {
  if (Array.isArray(schema?.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema?.type) {
    case "object": {
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) value[name] = valueFromSchema(property, text);
      return value;
    }
    case "array":
      return [valueFromSchema(schema.items, text)];
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return text;
  }
}

const mentions = (text: string, name: string) => text.toLowerCase().includes(name.toLowerCase().replace(/_/g, " ")) || text.includes(name);

/**
 * The local provider's deterministic rule for caller-run tools: the forced one (`toolChoice`
 * naming it, or `required`), else one whose name the last user turn mentions. Never after a tool
 * result: then the model answers.
 */
export function planClientToolCall(plan: GenerationPlan): ToolCallRecord | undefined {
  if (plan.clientTools.length === 0 || plan.toolChoice === "none") return undefined;
  const last: ConversationMessage | undefined = plan.conversation?.at(-1);
  if (last?.role === "tool") return undefined;
  const choice = plan.toolChoice;
  let tool: ClientToolDefinition | undefined;
  if (typeof choice === "object") tool = plan.clientTools.find((candidate) => candidate.name === choice.name);
  else
    tool =
      plan.clientTools.find((candidate) => mentions(plan.text, candidate.name)) ??
      (choice === "required" ? plan.clientTools[0] : undefined);
  if (tool === undefined) return undefined;
  const args = valueFromSchema({ type: "object", ...(tool.parameters as Schema) }, plan.text) as Record<string, unknown>;
  return { id: `call_local_${tool.name}`, name: tool.name, arguments: args };
}

/** The last tool result of the conversation, for the answer after a client tool ran. */
export function lastToolResult(plan: GenerationPlan): { name: string; content: string } | undefined {
  const last = plan.conversation?.at(-1);
  return last?.role === "tool" ? { name: last.toolName, content: last.content } : undefined;
}
