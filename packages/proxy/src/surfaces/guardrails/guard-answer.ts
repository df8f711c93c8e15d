import { GuardrailViolation, type TextSlot, textSlotsOf } from "@conduit-ai/guardrails";
import type { CallGuard } from "../../admission/call-guard.js";
import type { ProxyReply } from "../../relay/proxy-reply.js";
import type { TargetAnswer } from "../../targets/target.js";
import { chunksOf } from "../../targets/anthropic/reply-body.js";
import type { MessageObject } from "../../wire/anthropic-messages/messages-answer.js";
import { guardedEvents } from "./guarded-events.js";
import { guardedMessagesBytes } from "./messages-frames.js";

const headerOf = (headers: ProxyReply["headers"], name: string) => [headers[name] ?? ""].flat()[0] ?? "";

/** Headers that no longer describe a body written anew. */
function rewrittenHeaders(headers: ProxyReply["headers"]): ProxyReply["headers"] {
  const { "content-length": _length, "content-encoding": _encoding, etag: _etag, ...rest } = headers;
  return rest;
}

/** A reply body's bytes, read whole (a JSON answer, bounded by the upstream call's own limits). */
async function wholeBytes(body: NonNullable<ProxyReply["body"]>): Promise<Buffer> {
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const read: Uint8Array[] = [];
  for await (const chunk of body) read.push(chunk);
  return Buffer.concat(read);
}

/** A text checked where it lies: a mask is kept (`masked`), to be written into a copy. */
class DeferredSlot implements TextSlot {
  masked: string | undefined;

  constructor(readonly text: string) {}

  replace(text: string): void {
    this.masked = text;
  }
}

/**
 * A whole answer's content checked: a block throws (the surface's 400), a mask rewrites it. The
 * answer is read where it lies (it may be the relay's own parse, shared) and copied only when a
 * text changed: the masks are kept by slot and written into the copy's slots, found in the same order.
 */
async function guardedMessage(message: MessageObject, guard: CallGuard): Promise<MessageObject> {
  const slots = textSlotsOf(message.content).map((slot) => new DeferredSlot(slot.text));
  const outcome = await guard.set.checkTexts("response", slots, { ...guard.context, model: message.model });
  guard.record(outcome.hits);
  if (outcome.block) throw new GuardrailViolation(outcome.block);
  if (!outcome.changed) return message;
  const content = structuredClone(message.content);
  const copied = textSlotsOf(content);
  for (let index = 0; index < copied.length; index++) {
    const masked = slots[index]?.masked;
    if (masked !== undefined) copied[index]?.replace(masked);
  }
  return { ...message, content };
}

/**
 * The pool's passthrough on `/v1/messages` with response guardrails: a stream is decoded once and
 * guarded, events nothing changed going out as upstream's own frames (upstream's headers kept,
 * less its length); a JSON answer is checked whole and sent as upstream's bytes unless masked.
 * Error answers pass as they are.
 */
async function guardedPassthrough(reply: ProxyReply, guard: CallGuard): Promise<ProxyReply> {
  if (reply.status < 200 || reply.status > 299 || reply.body === null) return reply;
  const type = headerOf(reply.headers, "content-type");
  if (type.includes("text/event-stream")) {
    // The guard parses the stream's events anyway: the relay reads its usage from them rather
    // than search the bytes again. The new body is the guard's (its usage reader stays behind).
    const { usageEvents, ...rest } = reply;
    return {
      ...rest,
      headers: rewrittenHeaders(reply.headers),
      body: guardedMessagesBytes(chunksOf(reply.body), guard, usageEvents),
    };
  }
  if (!type.includes("json")) return reply;
  let bytes: Uint8Array;
  let message: unknown;
  if (reply.body instanceof Uint8Array && reply.parsedBody) {
    // A whole answer the relay parsed already (to read its usage) is not parsed again.
    bytes = reply.body;
    message = reply.parsedBody.value;
  } else {
    const whole = await wholeBytes(reply.body);
    bytes = whole;
    try {
      message = JSON.parse(whole.toString("utf8"));
    } catch {
      return { ...reply, body: bytes };
    }
  }
  if (message === null || typeof message !== "object" || !Array.isArray((message as MessageObject).content))
    return bytes === reply.body ? reply : { ...reply, body: bytes };
  const guarded = await guardedMessage(message as MessageObject, guard);
  if (guarded === message) return bytes === reply.body ? reply : { ...reply, body: bytes };
  // A new body: the relay's parse of the old one (`parsedBody`) is left behind.
  return { status: reply.status, headers: rewrittenHeaders(reply.headers), body: new TextEncoder().encode(JSON.stringify(guarded)) };
}

/**
 * A target's answer with the call's response guardrails: untouched when none apply (a
 * passthrough stays byte for byte, a stream is not held back at all), otherwise streams are
 * checked as they pass and whole answers before they are sent.
 *
 * @example
 * const answer = await guardAnswer(admitted?.guard, await target.serve(call));
 */
export async function guardAnswer(guard: CallGuard | undefined, answer: TargetAnswer): Promise<TargetAnswer> {
  if (!guard?.set.checks("response")) return answer;
  switch (answer.kind) {
    case "passthrough": {
      const reply = await guardedPassthrough(answer.reply, guard);
      return reply === answer.reply ? answer : { ...answer, reply };
    }
    case "message":
      return { ...answer, message: await guardedMessage(answer.message, guard) };
    case "events":
      return { ...answer, events: guardedEvents(answer.events, guard) };
  }
}
