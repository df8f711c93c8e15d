import {
  type AuthenticatedUser,
  type Runtime,
  ServerAdapterError,
  type TraceSpan,
  formatZodIssues,
  summarizeIssues,
} from "@conduit-ai/server-core";
import { z } from "zod";
import { extractJson } from "./extract-json.js";
import type { ProviderChoice } from "./select-provider.js";

/** What the AI path asks a model for. */
export interface StructuredRequest<T> {
  /** The workflow's name, for the system prompt. */
  task: string;
  /** What to do, in words, before the input. */
  instructions: string;
  /** The input and the facts of the deterministic analysis. */
  prompt: string;
  schema: z.ZodType<T>;
}

export interface StructuredOptions {
  /** Both attempts together (default 20 s). */
  timeoutMs: number;
  maxOutputTokens: number;
  signal: AbortSignal;
  /** The parent of the model calls' spans (the workflow's). */
  traceSpan?: TraceSpan;
  /** The caller, carried by every model call (a gate admits and charges each one to it). */
  user?: AuthenticatedUser;
  /** The HTTP request the calls serve (the guardrails record their hits on it). */
  requestId?: string;
}

/**
 * A refusal meant for the caller — a gate's 401, 403 or 429 naming its reason (`details.reason`:
 * no key, no budget left, a rate limit), or a guardrail's block — which a workflow passes on instead of falling back to
 * its simulated result.
 */
export function isCallerRefusal(error: unknown): boolean {
  if (!ServerAdapterError.isInstance(error)) return false;
  // A guardrail's block (400 `guardrail_violation`) is the caller's to see, never hidden by a simulated result.
  if (error.code === "guardrail_violation") return true;
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  return [401, 403, 429].includes(error.statusCode) && typeof reason === "string";
}

/** The AI path gave up; `reason` becomes the result's `fallbackReason`. */
export class StructuredOutputFailure extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

function describeIssues(error: z.ZodError): string {
  return summarizeIssues(formatZodIssues(error, { limit: 8 }));
}

function validate<T>(content: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; problem: string } {
  const parsed = extractJson(content);
  if ("error" in parsed) return { ok: false, problem: parsed.error };
  const checked = schema.safeParse(parsed.value);
  return checked.success ? { ok: true, value: checked.data } : { ok: false, problem: `schema mismatch: ${describeIssues(checked.error)}` };
}

function failureOf(error: unknown, choice: ProviderChoice, timedOut: boolean, timeoutMs: number): StructuredOutputFailure {
  const who = `provider "${choice.provider}"${choice.model ? ` (${choice.model})` : ""}`;
  if (timedOut) return new StructuredOutputFailure(`${who} did not answer within ${timeoutMs} ms`);
  if (ServerAdapterError.isInstance(error)) return new StructuredOutputFailure(`${who} failed: ${error.code}: ${error.message}`);
  return new StructuredOutputFailure(`${who} failed: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * Asks a model for JSON matching `schema`, validated by zod, with one repair attempt that shows
 * the model its mistakes. Invalid twice, a provider error or the time limit → a
 * `StructuredOutputFailure` (the workflow then answers with its simulated result).
 *
 * @example
 * const value = await generateStructured(runtime, { provider: "openai", model: undefined }, request, options);
 */
export async function generateStructured<T>(
  runtime: Runtime,
  choice: ProviderChoice,
  request: StructuredRequest<T>,
  options: StructuredOptions,
): Promise<{ value: T; model: string }> {
  const jsonSchema = JSON.stringify(z.toJSONSchema(request.schema, { io: "input", unrepresentable: "any" }));
  const system = `You are the "${request.task}" step of a software development workflow. ${request.instructions}\nAnswer with exactly one JSON object and nothing else (no prose, no code fences). It must match this JSON Schema:\n${jsonSchema}`;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  // The runtime should stop on the signal; the race makes sure a runtime that does not still cannot hold the request.
  const expired = new Promise<never>((_, reject) => timeout.addEventListener("abort", () => reject(new Error("timeout")), { once: true }));
  expired.catch(() => undefined);
  const ask = async (text: string) => {
    const result = await Promise.race([
      runtime.generate(
        {
          input: { text },
          system,
          provider: choice.provider,
          ...(choice.model ? { model: choice.model } : {}),
          temperature: 0.2,
          maxTokens: options.maxOutputTokens,
        },
        {
          signal,
          ...(options.traceSpan === undefined ? {} : { traceSpan: options.traceSpan }),
          ...(options.user === undefined ? {} : { user: options.user }),
          ...(options.requestId === undefined ? {} : { requestId: options.requestId }),
        },
      ),
      expired,
    ]);
    return result;
  };
  try {
    const first = await ask(request.prompt);
    const firstCheck = validate(first.content, request.schema);
    if (firstCheck.ok) return { value: firstCheck.value, model: first.model };
    const repairPrompt = `${request.prompt}\n\nYour previous answer was rejected (${firstCheck.problem}).\nPrevious answer:\n${first.content.slice(0, 8_000)}\n\nAnswer again with only the corrected JSON object.`;
    const second = await ask(repairPrompt);
    const secondCheck = validate(second.content, request.schema);
    if (secondCheck.ok) return { value: secondCheck.value, model: second.model };
    throw new StructuredOutputFailure(
      `provider "${choice.provider}"${choice.model ? ` (${choice.model})` : ""} returned invalid structured output twice (${secondCheck.problem})`,
    );
  } catch (error) {
    if (error instanceof StructuredOutputFailure || isCallerRefusal(error)) throw error;
    throw failureOf(error, choice, timeout.aborted, options.timeoutMs);
  }
}
