import { loadOptionalDependency } from "@conduit-ai/server-core";

type Encoder = { encode(text: string): number[] };
let encoder: Encoder | undefined;

/**
 * The o200k_base tokenizer (js-tiktoken's lite build and that one rank file, about 2 MB), loaded on
 * first use: a real tokenizer, though not Claude's own, so its counts are estimates.
 */
function tokenizer(): Encoder {
  if (encoder) return encoder;
  const feature = "token counts of non-Claude models (POST /v1/messages/count_tokens)";
  const { Tiktoken } = loadOptionalDependency<typeof import("js-tiktoken/lite")>("js-tiktoken/lite", { feature, from: import.meta.url });
  type Ranks = ConstructorParameters<typeof Tiktoken>[0];
  const ranks = loadOptionalDependency<Ranks | { default: Ranks }>("js-tiktoken/ranks/o200k_base", {
    feature,
    from: import.meta.url,
  });
  encoder = new Tiktoken("default" in ranks ? ranks.default : ranks);
  return encoder;
}

interface CountBody {
  system?: unknown;
  messages?: Array<{ content?: unknown }>;
  tools?: unknown[];
}

/** The text of a content value: strings, text blocks, tool inputs and tool results, as a model would read them. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? "" : JSON.stringify(content);
  return content
    .map((block: Record<string, unknown>) => {
      if (typeof block.text === "string") return block.text;
      if (block.type === "tool_use") return `${String(block.name)} ${JSON.stringify(block.input ?? {})}`;
      if (block.type === "tool_result") return textOf(block.content);
      if (typeof block.thinking === "string") return block.thinking;
      return "";
    })
    .join("\n");
}

/** Per-message framing tokens (role markers), as chat formats add them. */
const PER_MESSAGE = 3;

/**
 * An estimate of a Messages API request's input tokens: system, every message and the tool
 * definitions through a real BPE tokenizer (o200k_base), plus per-message framing.
 *
 * @example
 * countMessagesTokens({ messages: [{ role: "user", content: "Hello" }] }); // 4
 */
export function countMessagesTokens(body: CountBody): number {
  const encode = tokenizer();
  let tokens = encode.encode(textOf(body.system)).length;
  for (const message of body.messages ?? []) tokens += PER_MESSAGE + encode.encode(textOf(message.content)).length;
  if (body.tools && body.tools.length > 0) tokens += encode.encode(JSON.stringify(body.tools)).length;
  return tokens;
}
