/** Anthropic's prompt-cache marker: the prefix up to the block that carries it is cached (5 minutes). */
const EPHEMERAL = { type: "ephemeral" } as const;

type Marked<T> = T & { cache_control: typeof EPHEMERAL };

/** The parts of a translated Messages request a breakpoint goes on. */
interface Breakable {
  system?: string | undefined;
  tools?: readonly object[] | undefined;
}

/**
 * `request` with prompt-cache breakpoints where a session's prefix is stable: the last tool and
 * the system prompt (as one text block), each `cache_control: {type: "ephemeral"}`. Anthropic
 * caches tools, then system, then messages, so a later turn of the same session reads both from
 * the cache. Nothing else changes; a request without tools or system gets no breakpoint there.
 *
 * @example
 * const body = hints === "auto" ? withCacheBreakpoints(request) : request;
 */
export function withCacheBreakpoints<R extends Breakable>(
  request: R,
): Omit<R, "system" | "tools"> & { system?: Array<Marked<{ type: "text"; text: string }>>; tools?: object[] } {
  const { system, tools, ...rest } = request;
  return {
    ...rest,
    ...(tools ? { tools: tools.map((tool, index) => (index === tools.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool)) } : {}),
    ...(system ? { system: [{ type: "text" as const, text: system, cache_control: EPHEMERAL }] } : {}),
  };
}
