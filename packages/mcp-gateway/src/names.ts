/**
 * Names across servers: every tool, prompt, resource URI and URI template the gateway serves is
 * `<server>__<name>` (the convention MCP hosts already use), so a name says which server answers it
 * on any replica without a lookup table — a template expanded by the client keeps its prefix too.
 * Server names may not contain `__` (nor end in `_`), so the first `__` always splits.
 */
export const NAME_SEPARATOR = "__";

/** A server name: letters, digits and `-`, single `_` between them (at most 64). */
export const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

export function isServerName(name: string): boolean {
  return name.length <= 64 && SERVER_NAME.test(name);
}

/**
 * @example
 * namespaced("github", "search"); // "github__search"
 */
export function namespaced(server: string, name: string): string {
  return `${server}${NAME_SEPARATOR}${name}`;
}

/**
 * The server and the upstream's own name of a namespaced one; undefined when it has no server part.
 *
 * @example
 * splitNamespaced("files__file:///tmp/a.txt"); // { server: "files", name: "file:///tmp/a.txt" }
 */
export function splitNamespaced(value: unknown): { server: string; name: string } | undefined {
  if (typeof value !== "string") return undefined;
  const at = value.indexOf(NAME_SEPARATOR);
  if (at <= 0) return undefined;
  return { server: value.slice(0, at), name: value.slice(at + NAME_SEPARATOR.length) };
}
