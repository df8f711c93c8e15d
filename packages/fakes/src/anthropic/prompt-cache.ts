import { createHash } from "node:crypto";

/** What a request's input came to under prompt caching, as Anthropic splits it in `usage`. */
export interface PromptCacheUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
}

interface Block {
  tokens: number;
  /** The prefix up to and including this block, hashed without `cache_control` (breakpoints move between turns). */
  prefix: string;
  ttl?: "5m" | "1h";
}

const TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;
/** How far before a breakpoint Anthropic looks for an earlier cached prefix (its documented 20 blocks). */
const LOOKBACK_BLOCKS = 20;

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "cache_control")
        .map(([key, inner]) => [key, withoutCacheControl(inner)]),
    );
  return value;
}

/** The prompt's blocks in the order Anthropic caches them: tools, then system, then each message's content. */
function blocksOf(body: Record<string, unknown>): Array<{ part: unknown; cacheControl?: { ttl?: string } }> {
  const blocks: Array<{ part: unknown; cacheControl?: { ttl?: string } }> = [];
  const add = (part: unknown, tag: string) => {
    const cacheControl = (part as { cache_control?: { ttl?: string } } | null)?.cache_control;
    blocks.push({ part: [tag, withoutCacheControl(part)], ...(cacheControl ? { cacheControl } : {}) });
  };
  for (const tool of (body.tools as unknown[] | undefined) ?? []) add(tool, "tool");
  const system = body.system;
  if (typeof system === "string") add({ type: "text", text: system }, "system");
  else for (const part of (system as unknown[] | undefined) ?? []) add(part, "system");
  for (const message of (body.messages as Array<{ role?: string; content?: unknown }> | undefined) ?? []) {
    const content = message.content;
    if (typeof content === "string") add({ type: "text", text: content }, String(message.role));
    else for (const part of (content as unknown[] | undefined) ?? []) add(part, String(message.role));
  }
  return blocks;
}

/**
 * Anthropic's prompt cache, as its API behaves: the prefix of a request up to a `cache_control`
 * breakpoint (tools, system, messages, in that order) is written for 5 minutes or 1 hour
 * (`ttl: "1h"`); a later request whose prefix up to a breakpoint — or up to a block within the 20
 * before it — was written and has not expired reads it (and refreshes its TTL). Tokens are
 * counted as a quarter of each block's JSON bytes.
 *
 * @example
 * anthropic.promptCache = new FakePromptCache();
 */
export class FakePromptCache {
  readonly #entries = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  usageOf(body: Record<string, unknown>): PromptCacheUsage {
    const now = this.#now();
    let hash = "";
    const blocks: Block[] = blocksOf(body).map(({ part, cacheControl }) => {
      hash = createHash("sha256").update(hash).update(JSON.stringify(part)).digest("hex");
      const tokens = Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(part)) / 4));
      return { tokens, prefix: hash, ...(cacheControl ? { ttl: cacheControl.ttl === "1h" ? ("1h" as const) : ("5m" as const) } : {}) };
    });
    const live = (prefix: string) => (this.#entries.get(prefix) ?? 0) > now;
    // The longest cached prefix any breakpoint reaches.
    let readUpTo = -1;
    blocks.forEach((block, index) => {
      if (!block.ttl) return;
      for (let back = index; back >= Math.max(0, index - LOOKBACK_BLOCKS); back -= 1)
        if (live((blocks[back] as Block).prefix)) {
          readUpTo = Math.max(readUpTo, back);
          break;
        }
    });
    const usage: PromptCacheUsage = { input: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 };
    let written = readUpTo;
    blocks.forEach((block, index) => {
      if (index <= readUpTo) usage.cacheRead += block.tokens;
      if (!block.ttl || index <= readUpTo) return;
      // A new breakpoint: the blocks since the last cached or written one are written at its TTL.
      let tokens = 0;
      for (let inner = written + 1; inner <= index; inner += 1) tokens += (blocks[inner] as Block).tokens;
      if (block.ttl === "1h") usage.cacheWrite1h += tokens;
      else usage.cacheWrite += tokens;
      written = index;
      this.#entries.set(block.prefix, now + TTL_MS[block.ttl]);
    });
    if (readUpTo >= 0) {
      const read = blocks[readUpTo] as Block;
      this.#entries.set(read.prefix, Math.max(this.#entries.get(read.prefix) ?? 0, now + TTL_MS["5m"]));
    }
    for (let index = Math.max(written, readUpTo) + 1; index < blocks.length; index += 1) usage.input += (blocks[index] as Block).tokens;
    return usage;
  }
}
