import type { GateGuardrailHit } from "@conduit-ai/server-core";
import { type McpGuardedCall, type McpGuardedText, type McpToolGuard, argumentTexts } from "./tool-guard.js";

type Params = Record<string, unknown>;

/** Only the four named fields of each hit, whatever else a guard's hit carries. */
const namedHits = (hits: readonly GateGuardrailHit[]) =>
  hits.map(({ guardrail, action, direction, entity }) => ({ guardrail, action, direction, entity }));

async function checked(
  guard: McpToolGuard,
  texts: McpGuardedText[],
  call: McpGuardedCall,
  record: (hits: GateGuardrailHit[]) => void,
): Promise<{ message: string } | undefined> {
  if (texts.length === 0) return undefined;
  const verdict = await guard.check("response", texts, call);
  const hits = namedHits(verdict.hits);
  if (hits.length > 0) record(hits);
  return verdict.block;
}

/**
 * A `notifications/progress` of a tool call as the client may see it: its `message` checked by
 * the response guardrails (a mask rewrites it). A block drops the `message` and keeps the rest:
 * the field is optional, and the progress and total must still reach the client — its progress
 * callback (and a timeout reset on progress, as the SDK's `resetTimeoutOnProgress`) keep the
 * call alive, where a dropped notification could let it time out. There is no error to send for
 * a notification, and the call's own result is checked on its own.
 *
 * @example
 * progress(await guardedProgress(guard, { progress: 1, total: 2, message: "mailing ada@example.com" }, call, record));
 */
export async function guardedProgress(
  guard: McpToolGuard,
  params: Params,
  call: McpGuardedCall,
  record: (hits: GateGuardrailHit[]) => void,
): Promise<Params> {
  if (typeof params.message !== "string" || params.message === "") return params;
  const copy = { ...params };
  const slot = {
    text: params.message,
    replace: (text: string) => {
      copy.message = text;
    },
  };
  const block = await checked(guard, [slot], call, record);
  if (!block) return copy;
  const { message: _withheld, ...rest } = copy;
  return rest;
}

/**
 * A server's `notifications/message` (a log message) as the client may see it: every string of
 * its `data`, at any depth, checked by the response guardrails (a mask rewrites them). A block
 * replaces `data` with the violation's sentence (it names the guardrail and entity, never the
 * text): `data` is required by the protocol's schema, so dropping it would make the notification
 * one a strict client refuses, and dropping the notification would hide that the server logged
 * at all; the level and logger stay as the server sent them.
 *
 * @example
 * push(await guardedLogMessage(guard, { level: "info", logger: "files", data: "token AKIA…" }, call, record));
 */
export async function guardedLogMessage(
  guard: McpToolGuard,
  params: Params,
  call: McpGuardedCall,
  record: (hits: GateGuardrailHit[]) => void,
): Promise<Params> {
  // A wrapper, so a string `data` is replaced in place like a nested one; the server's own object is never changed.
  const wrapper = { data: structuredClone(params.data) };
  const block = await checked(guard, argumentTexts(wrapper), call, record);
  return { ...params, data: block ? block.message : wrapper.data };
}
