import { ServerAdapterError, type ServerContext } from "@conduit-ai/server-core";
import { DEFAULT_MAX_BODY_DEPTH, jsonDepthExceeds } from "@conduit-ai/server-core/internal";
import { invalidRequest, OpenAIWireError } from "../wire/openai-chat/openai-wire-error.js";

/**
 * The body is read here (the route takes it raw) so that every body problem is answered in
 * OpenAI's error shape rather than the server's envelope. JSON whatever its declared media type (OpenAI's API reads JSON only, and `curl -d`
 * says form): too large → 413, malformed or too deeply nested → 400, all in OpenAI's shape.
 */
export async function readJsonBody(ctx: ServerContext): Promise<unknown> {
  return (await readJsonText(ctx)).body;
}

/** `readJsonBody`, with the text it parsed (a gate estimates from its size and checks its top-level keys). */
export async function readJsonText(ctx: ServerContext): Promise<{ text: string; body: unknown }> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await ctx.readRawBody();
  } catch (error) {
    const status = ServerAdapterError.isInstance(error) ? error.statusCode : 400;
    throw new OpenAIWireError(status, (error as Error).message, "invalid_request_error");
  }
  const text = bytes === undefined ? "" : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (text.trim() === "") throw invalidRequest("The request body must be a JSON object");
  if (jsonDepthExceeds(text, DEFAULT_MAX_BODY_DEPTH))
    throw invalidRequest(`The JSON body is nested deeper than ${DEFAULT_MAX_BODY_DEPTH} levels`);
  try {
    return { text, body: JSON.parse(text) };
  } catch {
    throw invalidRequest("We could not parse the JSON body of your request.");
  }
}

/** The client headers a Claude target passes on: `anthropic-beta` and `names` (the pool's session header). */
export function passedOnHeaders(ctx: ServerContext, names: readonly string[] = []): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ["anthropic-beta", ...names]) {
    const value = ctx.header(name);
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** The request header asking a translated surface for prompt-cache breakpoints on a Claude target. */
export const PROMPT_CACHE_HEADER = "x-conduit-cache-control";

/**
 * The caller's prompt-cache hint: `auto` (breakpoints on the system prompt and the tools of a
 * Claude target's request) or none (`off`, or no header); any other value is a 400 naming the header.
 */
export function promptCacheHintOf(ctx: ServerContext): "auto" | undefined {
  const value = ctx.header(PROMPT_CACHE_HEADER)?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "off") return undefined;
  if (value === "auto") return "auto";
  throw invalidRequest(`The ${PROMPT_CACHE_HEADER} header takes "auto" or "off"`, PROMPT_CACHE_HEADER);
}
