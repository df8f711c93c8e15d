import type { ProxyReply } from "../../relay/proxy-reply.js";
import type { RelayRequest } from "../../relay/vendor-wire.js";
import type { MessageObject } from "../../wire/anthropic-messages/messages-answer.js";
import { withModel } from "../../wire/anthropic-messages/body-model.js";
import { withCacheBreakpoints } from "../../wire/anthropic-messages/cache-breakpoints.js";
import type { MessagesRequest } from "../../wire/anthropic-messages/messages-request.js";
import { decodeMessagesStream } from "../../wire/anthropic-messages/sse-decoder.js";
import { toMessagesRequest } from "../../wire/openai-chat/to-messages-request.js";
import { toMessages } from "../../wire/openai-responses/to-messages.js";
import { type Target, type TargetCall, TargetFailure } from "../target.js";
import type { RelayMessages } from "./messages-relay.js";
import { boundedText, cancelBody, chunksOf, wholeText } from "./reply-body.js";

/** The Messages API's request for a call from another wire, translated with the `wire/` converters. */
function messagesRequestOf(
  call: Exclude<TargetCall, { wire: "anthropic-messages" }>,
): Pick<MessagesRequest, "stream" | "system"> & { tools?: object[] } {
  if (call.wire === "openai-chat") return toMessagesRequest({ ...call.request, model: call.model }, call.translation);
  return toMessages({ ...call.request, model: call.model }, call.history, call.translation).request;
}

const headerOf = (headers: ProxyReply["headers"], name: string) => [headers[name] ?? ""].flat()[0] ?? "";

/**
 * The Messages API through the account pool. On `/v1/messages` the answer is a passthrough, byte
 * for byte (and so is the body, unless an alias named another model: then it is re-serialized
 * with the target's). From another wire the request is translated to the Messages API, relayed,
 * and the answer decoded once: a `message`, or its stream as Messages events (a broken stream
 * ends with an `error` event; returning early cancels the upstream request). An upstream error
 * answer, a reply that is not the Messages API's or a relay that could not send are thrown as a
 * `TargetFailure`, status kept.
 *
 * @example
 * const claude = createAnthropicTarget(proxy.relayMessages);
 * const answer = await claude.serve({ wire: "openai-chat", request, translation, model: "claude-haiku-4-5", … });
 */
export function createAnthropicTarget(relayMessages: RelayMessages): Target {
  return {
    async serve(call) {
      const servedBy = `anthropic/${call.model}`;
      const onUsage = call.onUsage;
      const relayed: Omit<RelayRequest, "headers"> = {
        signal: call.signal,
        ...(call.search ? { search: call.search } : {}),
        ...(call.traceSpan ? { traceSpan: call.traceSpan } : {}),
        ...(onUsage ? { onAnswered: (status: number, outcome) => onUsage({ from: "pool", status, outcome }) } : {}),
      };
      if (call.wire === "anthropic-messages") {
        const { body, model } = call.request;
        const reply = await relayMessages(model === call.model ? body : withModel(body, call.model), { ...relayed, headers: call.headers });
        return { kind: "passthrough", reply, servedBy };
      }
      const request = messagesRequestOf(call);
      const sent = call.promptCache === "auto" ? withCacheBreakpoints(request) : request;
      const headers = { ...call.headers, "content-type": "application/json", "anthropic-version": "2023-06-01" };
      let reply: ProxyReply;
      try {
        // OpenAI's cache key names the session: it keeps one account, so that account's prompt cache stays warm.
        const sessionKey = call.request.prompt_cache_key ?? undefined;
        reply = await relayMessages(new TextEncoder().encode(JSON.stringify(sent)), {
          ...relayed,
          headers,
          ...(sessionKey ? { sessionKey } : {}),
        });
      } catch (error) {
        throw TargetFailure.unreachable(error);
      }
      if (reply.status < 200 || reply.status > 299)
        throw TargetFailure.upstreamError(reply.status, await boundedText(reply.body), reply.headers);
      if (request.stream) {
        if (reply.body === null || !headerOf(reply.headers, "content-type").includes("text/event-stream")) {
          await cancelBody(reply.body);
          throw TargetFailure.protocol("The upstream answered a streaming request without a stream");
        }
        return { kind: "events", events: decodeMessagesStream(chunksOf(reply.body)), servedBy };
      }
      // Parsed once: the relay read a whole JSON answer's usage from it already.
      let message: unknown = reply.parsedBody?.value;
      if (reply.parsedBody === undefined) {
        try {
          message = JSON.parse(await wholeText(reply.body));
        } catch {
          message = undefined;
        }
      }
      if (message === null || typeof message !== "object") throw TargetFailure.protocol("The upstream sent a malformed response");
      return { kind: "message", message: message as MessageObject, servedBy };
    },
  };
}
