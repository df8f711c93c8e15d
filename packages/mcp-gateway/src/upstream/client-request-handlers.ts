import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** A request an upstream server makes of the client, and what the client answered. */
export type AskClient = (
  method: string,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

/** The client capabilities an upstream may use through the gateway: each names the request it allows. */
const FORWARDED = {
  sampling: CreateMessageRequestSchema,
  elicitation: ElicitRequestSchema,
  roots: ListRootsRequestSchema,
} as const;

/**
 * What the gateway's client declares to an upstream: the client's own `sampling`, `elicitation`
 * and `roots` capabilities, as it declared them at `initialize` — nothing it did not declare, so a
 * server never asks a client that cannot answer.
 *
 * @example
 * forwardedCapabilities({ sampling: {}, experimental: {} }); // { sampling: {} }
 */
export function forwardedCapabilities(client: Record<string, unknown> | undefined): Record<string, unknown> {
  const declared: Record<string, unknown> = {};
  for (const name of Object.keys(FORWARDED)) if (typeof client?.[name] === "object" && client[name] !== null) declared[name] = client[name];
  return declared;
}

/**
 * Handlers on the gateway's client for the requests its declared capabilities allow, each asking
 * the client at the other end; a request of a capability not declared is refused by the SDK
 * (-32601). The SDK checks each request and answer against the protocol's schemas.
 */
export function forwardClientRequests(client: Client, declared: Record<string, unknown>, ask: AskClient): void {
  for (const [name, schema] of Object.entries(FORWARDED)) {
    if (!(name in declared)) continue;
    client.setRequestHandler(schema as typeof ListRootsRequestSchema, async (request, extra) => {
      const params = request.params as Record<string, unknown> | undefined;
      return (await ask(request.method, params, extra.signal)) as never;
    });
  }
}
