import { type Caller, policiesOf } from "../auth/caller.js";
import { namespaced } from "../names.js";
import { serverAllowed, toolAllowed } from "../policy/access-policy.js";
import type { DispatchContext } from "./dispatch-context.js";

type Item = Record<string, unknown>;

interface ListMethod {
  /** The result's array. */
  key: string;
  /** The server capability the method needs. */
  capability: string;
  rename(server: string, item: Item): Item;
  /** Items this caller may not see (a key's tool allow-list). */
  allowed?(caller: Caller, server: string, item: Item): boolean;
}

const renamed = (server: string, item: Item, fields: string[]): Item => {
  const copy = { ...item };
  for (const field of fields) if (typeof copy[field] === "string") copy[field] = namespaced(server, copy[field] as string);
  return copy;
};

/** The list methods the gateway aggregates, and how each names its items. */
export const LIST_METHODS: Record<string, ListMethod> = {
  "tools/list": {
    key: "tools",
    capability: "tools",
    rename: (server, item) => renamed(server, item, ["name"]),
    allowed: (caller, server, item) => toolAllowed(policiesOf(caller), server, item.name as string),
  },
  "prompts/list": { key: "prompts", capability: "prompts", rename: (server, item) => renamed(server, item, ["name"]) },
  "resources/list": { key: "resources", capability: "resources", rename: (server, item) => renamed(server, item, ["uri", "name"]) },
  "resources/templates/list": {
    key: "resourceTemplates",
    capability: "resources",
    rename: (server, item) => renamed(server, item, ["uriTemplate", "name"]),
  },
};

/** Pages read from one upstream per listing at most (a runaway cursor ends there). */
const MAX_PAGES = 50;

/** The servers this caller may use, in configuration order. */
export function allowedServers(context: Pick<DispatchContext, "gateway" | "caller">): string[] {
  const policies = policiesOf(context.caller);
  return context.gateway.serverNames.filter((server) => serverAllowed(policies, server));
}

async function listServer(context: DispatchContext, server: string, method: string, list: ListMethod): Promise<Item[]> {
  const connection = context.session.connection(server);
  const items: Item[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    // A server that said it has none of these is not asked (once its capabilities are known).
    if (connection.capabilities && !connection.capabilities[list.capability]) return items;
    const result = await connection.request(method, cursor ? { cursor } : {}, { signal: context.signal, route: context.route });
    const found = Array.isArray(result[list.key]) ? (result[list.key] as Item[]) : [];
    for (const item of found) {
      const named = list.rename(server, item);
      if (!list.allowed || list.allowed(context.caller, server, named)) items.push(named);
    }
    cursor = typeof result.nextCursor === "string" && result.nextCursor.length > 0 ? result.nextCursor : undefined;
    if (!cursor) return items;
  }
  return items;
}

/**
 * One listing across every server the caller may use, asked in parallel, each item namespaced
 * (`<server>__<name>`), every page read (the answer has no cursor). A server that fails or does
 * not answer in time is left out and named in `_meta["conduit/unavailable"]`: the others' items
 * are still listed.
 *
 * @example
 * await aggregateList(context, "tools/list"); // { tools: [{ name: "files__read_file", ... }, ...] }
 */
export async function aggregateList(context: DispatchContext, method: string): Promise<Record<string, unknown>> {
  const list = LIST_METHODS[method] as ListMethod;
  const servers = allowedServers(context);
  const settled = await Promise.allSettled(servers.map((server) => listServer(context, server, method, list)));
  const items: Item[] = [];
  const unavailable: Array<{ server: string; message: string }> = [];
  settled.forEach((outcome, index) => {
    const server = servers[index] as string;
    if (outcome.status === "fulfilled") items.push(...outcome.value);
    // A server without the method (-32601) simply has none.
    else if ((outcome.reason as { code?: unknown }).code !== -32601)
      unavailable.push({ server, message: (outcome.reason as Error).message });
  });
  return { [list.key]: items, ...(unavailable.length > 0 ? { _meta: { "conduit/unavailable": unavailable } } : {}) };
}
