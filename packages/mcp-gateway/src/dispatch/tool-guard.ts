import type { GateGuardrailHit, GateIdentity } from "@conduit-ai/server-core";
import { RpcError, RpcErrorCode } from "../jsonrpc/json-rpc-error.js";

/** A string inside a tool call's arguments or result, and how to replace it there. */
export interface McpGuardedText {
  text: string;
  replace(text: string): void;
}

/** The tool call a guard checks (or the server whose log message it checks): never the credential. */
export interface McpGuardedCall {
  server: string;
  /** The tool's own name; empty for a server's log message, which no tool call carries. */
  tool: string;
  /** `<server>__<tool>`, as the client named it; the server's name for a log message. */
  namespacedName: string;
  /** A virtual key's identity: its (team's, then own) `guardrails` names. */
  identity?: GateIdentity | undefined;
}

/** What a guard made of one side of a call: its hits, and a block's client-facing sentence. */
export interface McpGuardVerdict {
  hits: readonly GateGuardrailHit[];
  /** Set when the call (or its result) is refused: the message names the guardrail and entity, never the matched text. */
  block?: { message: string; guardrail: string; entity: string };
}

/**
 * Checks the texts of tool calls: arguments (`request`) before they go upstream, results
 * (`response`) before they reach the client. A mask rewrites texts through `replace`. Implemented
 * by `@conduit-ai/guardrails` (`mcpToolGuard`); the gateway itself depends on no guardrail code.
 */
export interface McpToolGuard {
  check(direction: "request" | "response", texts: McpGuardedText[], call: McpGuardedCall): Promise<McpGuardVerdict>;
}

/** Every string inside a JSON value, recursively (object keys are not text the tool reads). */
function stringsOf(container: Record<string, unknown> | unknown[], key: string | number, into: McpGuardedText[]): void {
  const slots = container as Record<string | number, unknown>;
  const item = slots[key];
  if (typeof item === "string") {
    if (item.length > 0)
      into.push({
        text: item,
        replace: (text) => {
          slots[key] = text;
        },
      });
  } else if (Array.isArray(item)) for (let index = 0; index < item.length; index++) stringsOf(item, index, into);
  else if (item !== null && typeof item === "object")
    for (const child of Object.keys(item)) stringsOf(item as Record<string, unknown>, child, into);
}

/** A tool call's arguments as texts: every string value, at any depth. */
export function argumentTexts(args: Record<string, unknown>): McpGuardedText[] {
  const texts: McpGuardedText[] = [];
  for (const key of Object.keys(args)) stringsOf(args, key, texts);
  return texts;
}

/** A tool result's texts: its `text` content items (and embedded text resources) and every string of `structuredContent`. */
export function resultTexts(result: Record<string, unknown>): McpGuardedText[] {
  const texts: McpGuardedText[] = [];
  if (Array.isArray(result.content))
    for (const item of result.content) {
      if (item === null || typeof item !== "object") continue;
      const part = item as Record<string, unknown>;
      if (part.type === "text") stringsOf(part, "text", texts);
      const resource = part.resource as Record<string, unknown> | undefined;
      if (part.type === "resource" && resource !== null && typeof resource === "object") stringsOf(resource, "text", texts);
    }
  if (result.structuredContent !== undefined) stringsOf(result, "structuredContent", texts);
  return texts;
}

/**
 * Runs the guard on one side of a call, its hits handed to `record` (the usage event's, the
 * request's live feed and span); a block thrown as a JSON-RPC error — -32602 for arguments
 * (nothing went upstream), -32004 for a result (the client never sees it).
 */
export async function guardTexts(
  guard: McpToolGuard,
  direction: "request" | "response",
  texts: McpGuardedText[],
  call: McpGuardedCall,
  record: (hits: GateGuardrailHit[]) => void,
): Promise<void> {
  if (texts.length === 0) return;
  const verdict = await guard.check(direction, texts, call);
  // Only the four named fields, whatever else a guard's hit carries.
  const hits = verdict.hits.map(({ guardrail, action, direction: side, entity }) => ({ guardrail, action, direction: side, entity }));
  if (hits.length > 0) record(hits);
  if (!verdict.block) return;
  const code = direction === "request" ? RpcErrorCode.INVALID_PARAMS : RpcErrorCode.GUARDRAIL_VIOLATION;
  throw new RpcError(code, verdict.block.message, {
    reason: "guardrail_violation",
    guardrail: verdict.block.guardrail,
    entity: verdict.block.entity,
  });
}
