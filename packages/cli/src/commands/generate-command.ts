import { parseArgs } from "node:util";
import { createRuntime } from "@conduit-ai/runtime";
import type { GenerateRequest } from "@conduit-ai/server-core";
import { terminalStyle } from "../terminal-style.js";
import { UsageError } from "../usage-error.js";

export const GENERATE_USAGE = `Usage: conduit generate --input "text" [--provider NAME] [--model NAME] [--system "text"] [--stream] [--json]
  --input     the prompt (the legacy form \`conduit generate "text"\` still works, with a deprecation notice)
  --provider  a configured provider (default: the first of openai, anthropic, else the offline local one)
  --model     a model of that provider
  --system    a system prompt
  --stream    print the text as it arrives
  --json      print the whole result as JSON (with --stream: every stream event, one JSON object per line)
Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ... (see @conduit-ai/runtime).
Exit codes: 0 done, 2 usage error (also an unknown provider or model), 1 provider error.`;

/** A provider or model the user named that does not exist is a usage mistake, not a provider failure. */
const USAGE_CODES = new Set(["PROVIDER_NOT_CONFIGURED", "MODEL_NOT_AVAILABLE", "VALIDATION_ERROR"]);

/** A failure of the provider call: printed as one line, exit code 1. */
export class ProviderFailure extends Error {
  override readonly name = "ProviderFailure";
}

interface GenerateFlags {
  request: GenerateRequest;
  stream: boolean;
  json: boolean;
}

function parseGenerateFlags(argv: string[]): GenerateFlags {
  let parsed: ReturnType<
    typeof parseArgs<{ options: Record<string, { type: "string" | "boolean" }>; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        input: { type: "string" },
        provider: { type: "string" },
        model: { type: "string" },
        system: { type: "string" },
        stream: { type: "boolean" },
        json: { type: "boolean" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (see conduit generate --help)`);
  }
  const values = parsed.values as { input?: string; provider?: string; model?: string; system?: string; stream?: boolean; json?: boolean };
  const { positionals } = parsed;
  if (values.input !== undefined && positionals.length > 0)
    throw new UsageError(`Give the prompt once: --input or a positional text, not both`);
  if (positionals.length > 1)
    throw new UsageError(`Expected one prompt, got ${positionals.length} arguments (quote the text, or use --input "text")`);
  let text = values.input;
  if (text === undefined && positionals.length === 1) {
    text = positionals[0] as string;
    console.error('conduit generate "text" is deprecated: use conduit generate --input "text"');
  }
  if (text === undefined || text.trim() === "")
    throw new UsageError('Missing prompt: conduit generate --input "text" (see conduit generate --help)');
  const request: GenerateRequest = { input: { text } };
  if (values.provider !== undefined) request.provider = values.provider;
  if (values.model !== undefined) request.model = values.model;
  if (values.system !== undefined) request.system = values.system;
  return { request, stream: values.stream === true, json: values.json === true };
}

function toFailure(error: unknown): Error {
  const { code, message } = error as { code?: string; message?: string };
  if (code !== undefined && USAGE_CODES.has(code)) return new UsageError(message ?? code);
  return new ProviderFailure(`Provider error${code ? ` (${code})` : ""}: ${(message ?? String(error)).split("\n")[0]}`);
}

/**
 * `conduit generate`: one generation on the runtime package's `createRuntime` (the offline
 * `local` provider unless the environment configures one), printed as text, streamed text or JSON.
 *
 * @example
 * await runGenerate(["--input", "hello", "--stream"], process.env);
 */
export async function runGenerate(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const flags = parseGenerateFlags(argv);
  const runtime = createRuntime({ env, onDeprecation: () => undefined });
  const style = terminalStyle(process.stderr, env, { json: flags.json });
  try {
    if (flags.stream) await streamTo(runtime.stream(flags.request), flags.json);
    else {
      const stopProgress = style.progress("Generating…");
      let result: Awaited<ReturnType<typeof runtime.generate>>;
      try {
        result = await runtime.generate(flags.request);
      } finally {
        stopProgress();
      }
      if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else {
        process.stdout.write(`${result.content}\n`);
        if (style.enabled)
          process.stderr.write(`${style.dim(`${result.provider}/${result.model} · ${result.usage.totalTokens} tokens`)}\n`);
      }
    }
  } catch (error) {
    throw error instanceof UsageError || error instanceof ProviderFailure ? error : toFailure(error);
  } finally {
    await runtime.close();
  }
}

/** Writes each text delta as it arrives (or each event as a JSON line); an `error` event is a provider failure. */
async function streamTo(events: AsyncIterable<{ type: string; data?: unknown }>, json: boolean): Promise<void> {
  let endsWithNewline = true;
  for await (const event of events) {
    if (json) process.stdout.write(`${JSON.stringify(event)}\n`);
    else if (event.type === "text-delta") {
      const delta = (event.data as { delta: string }).delta;
      process.stdout.write(delta);
      if (delta.length > 0) endsWithNewline = delta.endsWith("\n");
    }
    if (event.type === "error") {
      if (!json && !endsWithNewline) process.stdout.write("\n");
      throw toFailure(event.data);
    }
  }
  if (!json && !endsWithNewline) process.stdout.write("\n");
}
