// What `bench:gateway` calls: each gateway's request for a surface, in the shape its users send it.
// Conduit takes its client key; Portkey takes its routing headers (provider, custom host) and the
// vendor key; the pipe forwards anything; `direct` is the fake itself (the reference for added time).
import type { Call } from "./http-load.js";

export type Surface = "messages" | "chat";
export type GatewayName = "direct" | "pipe" | "conduit" | "portkey";

export interface Ports {
  anthropic: number;
  openai: number;
  pipe: number;
  conduit: number;
  portkey?: number;
}

const CLIENT_KEY = "bench-client-key-0123456789";

export function requestBody(stream: boolean, messages: unknown[] = [{ role: "user", content: "Hello" }], extra = {}): string {
  // Both surfaces name a Claude model: the chat surface is translated to the Messages API upstream.
  return JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages, ...(stream ? { stream: true } : {}), ...extra });
}

/** Portkey's headers for the Anthropic fake; `config` (a Portkey config object) replaces the provider headers. */
export function portkeyHeaders(ports: Ports, config?: unknown): Record<string, string> {
  const customHost = `http://127.0.0.1:${ports.anthropic}/v1`;
  if (config) return { "x-portkey-config": JSON.stringify(config), "anthropic-version": "2023-06-01" };
  return {
    "x-portkey-provider": "anthropic",
    "x-portkey-custom-host": customHost,
    authorization: "Bearer sk-bench",
    "x-api-key": "sk-bench",
    "anthropic-version": "2023-06-01",
  };
}

/** The call of `gateway` on `surface` with `body`; undefined when that gateway is not in the run. */
export function callFor(gateway: GatewayName, surface: Surface, body: string, ports: Ports): Call | undefined {
  const path = surface === "messages" ? "/v1/messages" : "/v1/chat/completions";
  switch (gateway) {
    case "direct":
      // Chat through a gateway becomes a Messages call upstream: the Messages fake is its reference.
      return { port: ports.anthropic, path: "/v1/messages", headers: { "x-api-key": "sk-bench", "anthropic-version": "2023-06-01" }, body };
    case "pipe":
      return { port: ports.pipe, path, headers: { "anthropic-version": "2023-06-01" }, body };
    case "conduit":
      return { port: ports.conduit, path, headers: { "x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01" }, body };
    case "portkey":
      return ports.portkey ? { port: ports.portkey, path, headers: portkeyHeaders(ports), body } : undefined;
  }
}
