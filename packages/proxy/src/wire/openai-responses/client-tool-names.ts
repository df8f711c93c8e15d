/** How a model's tool call is named back to the client: its name and, for a namespaced tool, its namespace. */
export interface ClientCallName {
  name: string;
  namespace?: string;
}

/**
 * The client's tools as a model sees them, and back. Codex declares tools inside `namespace`
 * tools (`{type: "namespace", name: "multi_agent_v1", tools: [{type: "function", name: "spawn"}]}`)
 * and names its calls `{namespace, name}`; a model that has no namespaces gets them flattened
 * as `<namespace>__<name>`, and its calls are split back. `custom` tools (free-text input) are
 * remembered so their calls come back as `custom_tool_call` items.
 *
 * @example
 * const names = new ClientToolNames();
 * const flat = names.addNamespaced("multi_agent_v1", "spawn"); // "multi_agent_v1__spawn"
 * names.callOf(flat); // { name: "spawn", namespace: "multi_agent_v1" }
 */
export class ClientToolNames {
  private readonly custom = new Set<string>();
  private readonly namespaced = new Map<string, Required<ClientCallName>>();

  /**
   * The names of a request's tools: `custom` tools, and the function tools of each `namespace`
   * (what every target translating a Responses request declares, and every answer is read by).
   */
  static of(
    tools: ReadonlyArray<{ type: string; name?: string; tools?: ReadonlyArray<{ type: string; name?: string }> }> | null | undefined,
  ) {
    const names = new ClientToolNames();
    for (const tool of tools ?? []) {
      if (tool.type === "custom") names.addCustom(tool.name ?? "");
      else if (tool.type === "namespace")
        for (const member of tool.tools ?? []) if (member.type === "function") names.addNamespaced(tool.name ?? "", member.name ?? "");
    }
    return names;
  }

  /** The flat name of a namespaced tool. */
  static flat(namespace: string, name: string): string {
    return `${namespace}__${name}`;
  }

  addCustom(name: string): void {
    this.custom.add(name);
  }

  /** Registers a namespace's tool; returns the flat name the model sees. */
  addNamespaced(namespace: string, name: string): string {
    const flat = ClientToolNames.flat(namespace, name);
    this.namespaced.set(flat, { namespace, name });
    return flat;
  }

  isCustom(flatName: string): boolean {
    return this.custom.has(flatName);
  }

  /** The name (and namespace) the client knows a model's call by. */
  callOf(flatName: string): ClientCallName {
    return this.namespaced.get(flatName) ?? { name: flatName };
  }
}
