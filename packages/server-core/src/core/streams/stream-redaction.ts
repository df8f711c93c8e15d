import { setOwn } from "../pipeline/request-context.js";
import type { RedactionConfig } from "../../contracts/config.js";
import type { ServerContext } from "../../contracts/context.js";
import type { DataStreamEvent } from "../../contracts/stream-event.js";

/** Fields replaced at any depth when redaction is enabled (matched case-insensitively). */
export const DEFAULT_REDACTED_FIELDS = [
  "request",
  "args",
  "result",
  "apiKey",
  "token",
  "authorization",
  "credentials",
  "password",
  "secret",
] as const;

export const DEFAULT_REDACTION_PLACEHOLDER = "[REDACTED]";

/** Turns one event into the event actually sent (redaction, enrichment). */
export type StreamEventTransform = (event: DataStreamEvent) => DataStreamEvent;

/**
 * Redacts one stream event: every default or `additionalFields` key inside `data`, at any
 * depth, becomes the placeholder unless listed in `preserveFields`; a tool call's
 * `data.arguments` and a tool result's `data.result` are replaced whole unless
 * `redactToolArgs`/`redactToolResults` is false. Disabled → the event unchanged.
 * The event itself is never mutated.
 *
 * @example
 * redactStreamEvent({ type: "data", timestamp: 1, data: { token: "t" } }, { enabled: true });
 * // → { type: "data", timestamp: 1, data: { token: "[REDACTED]" } }
 */
export function redactStreamEvent(event: DataStreamEvent, options: RedactionConfig): DataStreamEvent {
  const redactor = createStreamRedactor(options);
  return redactor ? redactor(event) : event;
}

/** The redaction transform for a config, or undefined when redaction is disabled. */
export function createStreamRedactor(options: RedactionConfig): StreamEventTransform | undefined {
  if (!options.enabled) return undefined;
  const preserved = new Set((options.preserveFields ?? []).map((field) => field.toLowerCase()));
  const fields = new Set(
    [...DEFAULT_REDACTED_FIELDS, ...(options.additionalFields ?? [])]
      .map((field) => field.toLowerCase())
      .filter((field) => !preserved.has(field)),
  );
  const placeholder = options.placeholder ?? DEFAULT_REDACTION_PLACEHOLDER;
  const redactToolArgs = options.redactToolArgs ?? true;
  const redactToolResults = options.redactToolResults ?? true;
  const redactValue = (value: unknown, depth: number): unknown => {
    if (typeof value !== "object" || value === null) return value;
    // Depth bound: a pathological payload must not overflow the stack; what lies deeper is
    // hidden whole rather than sent unredacted.
    if (depth > 64) return placeholder;
    if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
    const output: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      setOwn(output, key, fields.has(key.toLowerCase()) ? placeholder : redactValue(item, depth + 1));
    return output;
  };
  return (event) => {
    const data = event.data;
    if (typeof data !== "object" || data === null || Array.isArray(data)) return { ...event, data: redactValue(data, 0) };
    const record = data as Record<string, unknown>;
    const toolField = event.type === "tool-call" ? "arguments" : event.type === "tool-result" ? "result" : undefined;
    const output: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(record)) {
      if (key === toolField && !preserved.has(key.toLowerCase())) {
        const wholesale = toolField === "arguments" ? redactToolArgs : redactToolResults;
        setOwn(output, key, wholesale ? placeholder : redactValue(item, 1));
      } else {
        setOwn(output, key, fields.has(key.toLowerCase()) ? placeholder : redactValue(item, 1));
      }
    }
    return { ...event, data: output };
  };
}

const TRANSFORMS_KEY = "conduit.streamEventTransforms";
/** Where the request keeps `config.redaction`'s redactor, for streams a handler encodes itself (`createWebStreamWriter({ context })`). */
const GLOBAL_REDACTOR_KEY = "conduit.globalStreamRedactor";

/** @internal the core records `config.redaction`'s redactor on each request it serves (when enabled). */
export function setGlobalStreamRedactor(context: Pick<ServerContext, "state">, redactor: StreamEventTransform): void {
  context.state[GLOBAL_REDACTOR_KEY] = redactor;
}

/**
 * Registers a per-request transform applied by the core to every event of this
 * request's stream (after the global redaction). Call it from a middleware before `next()`.
 *
 * @example
 * handler: async (ctx, next) => { addStreamEventTransform(ctx, (event) => ({ ...event, id: "x" })); await next(); }
 */
export function addStreamEventTransform(context: Pick<ServerContext, "state">, transform: StreamEventTransform): void {
  const list = (context.state[TRANSFORMS_KEY] as StreamEventTransform[] | undefined) ?? [];
  list.push(transform);
  context.state[TRANSFORMS_KEY] = list;
}

/**
 * The global redactor (`config.redaction`, recorded on the request unless given) followed by the
 * request's own transforms, composed; undefined when none.
 *
 * @example
 * const transform = streamEventTransformFor(ctx);
 * const safe = transform ? transform(event) : event;
 */
export function streamEventTransformFor(
  context: Pick<ServerContext, "state">,
  globalRedactor = context.state[GLOBAL_REDACTOR_KEY] as StreamEventTransform | undefined,
): StreamEventTransform | undefined {
  const transforms = [
    ...(globalRedactor ? [globalRedactor] : []),
    ...((context.state[TRANSFORMS_KEY] as StreamEventTransform[] | undefined) ?? []),
  ];
  if (transforms.length === 0) return undefined;
  return (event) => transforms.reduce((current, transform) => transform(current), event);
}
