import type { McpAccessPolicy } from "@conduit-ai/server-core";

/** Compiled patterns are cached by their text: policies repeat across requests of one key. */
const compiled = new Map<string, RegExp>();

function patternOf(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) {
    const source = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*");
    regex = new RegExp(`^${source}$`);
    if (compiled.size > 5_000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/**
 * Whether a list of patterns lets `name` through: `*` matches any run of characters, a leading
 * `!` excludes, an exclusion always wins, and a list of exclusions only lets everything else pass.
 *
 * @example
 * listAllows(["github__*", "!github__delete_*"], "github__delete_repo"); // false
 */
export function listAllows(patterns: readonly string[] | undefined, name: string): boolean {
  if (!patterns) return true;
  let included = false;
  let hasInclusions = false;
  for (const pattern of patterns) {
    if (pattern.startsWith("!")) {
      if (patternOf(pattern.slice(1)).test(name)) return false;
    } else {
      hasInclusions = true;
      if (!included && patternOf(pattern).test(name)) included = true;
    }
  }
  return included || !hasInclusions;
}

/** A server may be used when every policy (the key's, its team's) names it, or names none. */
export function serverAllowed(policies: readonly McpAccessPolicy[] | undefined, server: string): boolean {
  return (policies ?? []).every((policy) => listAllows(policy.servers, server));
}

/** A tool (namespaced `<server>__<tool>`) may be used when its server may and every policy's `tools` let it through. */
export function toolAllowed(policies: readonly McpAccessPolicy[] | undefined, server: string, namespacedName: string): boolean {
  return serverAllowed(policies, server) && (policies ?? []).every((policy) => listAllows(policy.tools, namespacedName));
}
