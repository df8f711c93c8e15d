import type { GateGuardrailHit, GateIdentity } from "@conduit-ai/server-core";
import { violationMessage } from "./guardrail-violation.js";
import type { Guardrails } from "./guardrails.js";
import type { TextSlot } from "./json-texts.js";

/**
 * The MCP gateway's tool guard (`createMcpGateway({ toolGuard })`), typed here by its shape so
 * neither package depends on the other.
 */
export interface McpToolGuardShape {
  check(
    direction: "request" | "response",
    texts: TextSlot[],
    call: { server: string; tool: string; namespacedName: string; identity?: GateIdentity | undefined },
  ): Promise<{ hits: readonly GateGuardrailHit[]; block?: { message: string; guardrail: string; entity: string } }>;
}

/**
 * The guardrails on MCP tool calls: a call's rules are the defaults plus its key's (team's, then
 * own) `guardrails` names; arguments are checked as `request`, results as `response`, hits
 * counted through `guardrails.record` (metrics) and handed back for the call's usage event.
 *
 * @example
 * createMcpGateway({ servers, gate, toolGuard: mcpToolGuard(guardrails) });
 */
export function mcpToolGuard(guardrails: Guardrails): McpToolGuardShape {
  return {
    async check(direction, texts, call) {
      const set = guardrails.select(call.identity?.guardrails ? [call.identity.guardrails] : []);
      if (!set?.checks(direction)) return { hits: [] };
      const outcome = await set.checkTexts(direction, texts, {
        surface: "mcp",
        model: call.namespacedName,
        ...(call.identity ? { key: call.identity.keyId } : {}),
        ...(call.identity?.team ? { team: call.identity.team } : {}),
      });
      guardrails.record(outcome.hits);
      const hits = outcome.hits.map(({ guardrail, action, direction: side, entity }) => ({ guardrail, action, direction: side, entity }));
      if (!outcome.block) return { hits };
      return {
        hits,
        block: { message: violationMessage(outcome.block), guardrail: outcome.block.guardrail, entity: outcome.block.entity },
      };
    },
  };
}
