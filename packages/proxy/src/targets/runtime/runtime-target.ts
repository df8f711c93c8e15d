import { type MeteredUsage, usageFromTokenUsage } from "@conduit-ai/server-core/pricing";
import type { GenerateRequest, Runtime } from "@conduit-ai/server-core";
import { parseMessagesBody } from "../../wire/anthropic-messages/messages-request.js";
import { runtimeRequestOfChat } from "../../wire/runtime/from-chat.js";
import { runtimeRequestOfMessages } from "../../wire/runtime/from-messages.js";
import { runtimeRequestOfResponses } from "../../wire/runtime/from-responses.js";
import { RuntimeStreamTranslator, messageOfResult, newMessageId } from "../../wire/runtime/to-messages-answer.js";
import { type Target, type TargetCall, TargetFailure } from "../target.js";
import { resolveRuntimeModel } from "./resolve-model.js";
import { RuntimeEvents } from "./runtime-events.js";

/**
 * The runtime's request for a call, whether it streams, and the model its answer names — as each
 * surface has always named a runtime answer: `/v1/messages` what served it (`local/echo`), chat
 * completions the target's model, Responses the model the client asked for.
 */
function runtimeCallOf(
  call: TargetCall,
  resolved: { provider: string; model: string },
  servedBy: string,
): { request: GenerateRequest; stream: boolean; answerModel: string; droppedTools?: string[] } {
  switch (call.wire) {
    case "anthropic-messages": {
      const body = parseMessagesBody(call.request.body);
      return { request: runtimeRequestOfMessages(body, resolved), stream: Boolean(body.stream), answerModel: servedBy };
    }
    case "openai-chat": {
      const request = runtimeRequestOfChat({ ...call.request, model: call.model }, resolved, call.translation.dropParams);
      return { request, stream: Boolean(call.request.stream), answerModel: call.model };
    }
    case "openai-responses": {
      const { generate, droppedTools } = runtimeRequestOfResponses(
        { ...call.request, model: call.model },
        call.history,
        resolved,
        call.translation.dropParams,
      );
      return { request: generate, stream: Boolean(call.request.stream), answerModel: call.request.model, droppedTools };
    }
  }
}

/**
 * The runtime's providers (the Vercel AI SDK target: every provider the runtime has, `local`
 * included). The target name is resolved to a provider and model, the surface's request
 * translated to the runtime's `GenerateRequest`, and the answer given as a Messages `message`, or
 * as Messages events converted once from the runtime's stream. A provider failure before an
 * answer is thrown with its status; with a later target, a stream is held back until its provider
 * answered, so a 429/5xx before the first byte still falls back. Without a runtime every name is
 * a 404 naming the model.
 *
 * @example
 * const runtimeTarget = createRuntimeTarget(runtime);
 */
export function createRuntimeTarget(runtime: Runtime | undefined): Target {
  return {
    async serve(call) {
      if (!runtime) throw TargetFailure.noRuntime(call.model);
      const resolved = await resolveRuntimeModel(runtime, call.model);
      const servedBy = `${resolved.provider}/${resolved.model}`;
      const { request, stream, answerModel, droppedTools } = runtimeCallOf(call, resolved, servedBy);
      const dropped = droppedTools && droppedTools.length > 0 ? { droppedTools } : {};
      const onUsage = call.onUsage;
      const report = (usage: MeteredUsage | undefined) => onUsage?.({ from: "runtime", servedBy, model: resolved.model, usage });
      const meta = { id: newMessageId(), model: answerModel };
      if (!stream) {
        const result = await runtime.generate(request, call.context());
        report(usageFromTokenUsage(result.usage));
        return { kind: "message", message: messageOfResult(result, meta), servedBy, ...dropped };
      }
      const events = new RuntimeEvents(runtime.stream(request, call.context()), new RuntimeStreamTranslator(meta), report);
      if (call.hasFallback) await events.prime();
      return { kind: "events", events, servedBy, ...dropped };
    },
  };
}
