import type { IncomingMessage } from "node:http";
import type { Runtime } from "@conduit-ai/server-core";
import { BoundedCache } from "@conduit-ai/server-core/internal";
import type { GovernanceGate } from "../gate/governance-gate.js";
import { credentialOf } from "../key-secret.js";
import { gateRuntime } from "./gated-runtime.js";

/** The WebSocket upgrade's auth (`strategy: "custom"`) and the runtime its messages run on. */
export interface VirtualKeyWebSocket {
  auth: {
    strategy: "custom";
    extractToken: (request: IncomingMessage) => string | undefined;
    validate: (
      credential: string,
    ) => Promise<{ id: string; roles: string[]; permissions: string[]; metadata: Record<string, unknown> } | null>;
  };
  runtime: Runtime;
}

/**
 * The auth type `virtual-key` on `/ws`: the upgrade accepts a live virtual key (`x-api-key` or
 * `Authorization: Bearer`), and every message that starts work (`generate`, `stream`) is admitted
 * by the gate and settled from its usage, exactly as on `/api/agent/*`. The connection keeps the
 * key's digest (by the user id it carries), never the secret.
 *
 * @example
 * const ws = virtualKeyWebSocket(gate, runtime, 4096);
 * attachWebSocket(server, { runtime: ws.runtime, auth: ws.auth });
 */
export function virtualKeyWebSocket(gate: GovernanceGate, runtime: Runtime, defaultMaxOutputTokens: number): VirtualKeyWebSocket {
  /** connection user id → digest. Bounded: the least recently used goes first. */
  const digests = new BoundedCache<string>({ maxEntries: 10_000 });
  let connections = 0;
  const gated = gateRuntime(gate, runtime, {
    surface: "ws",
    defaultMaxOutputTokens,
    digestOf: (context) => (context?.user ? digests.get(context.user.id) : undefined),
  });

  return {
    runtime: gated,
    auth: {
      strategy: "custom",
      extractToken: (request) =>
        credentialOf((name) => {
          const value = request.headers[name];
          return Array.isArray(value) ? value[0] : value;
        }),
      validate: async (credential) => {
        const digest = gate.digestOf(credential);
        const identity = await gate.identify(digest);
        if (!identity) return null;
        connections += 1;
        const id = `${identity.keyId}#${connections}`;
        digests.set(id, digest);
        return {
          id,
          roles: ["virtual-key"],
          permissions: [],
          // `key` and `keyName` name the key on the live feed's rows of this connection's messages.
          metadata: {
            key: identity.keyId,
            ...(identity.name ? { keyName: identity.name } : {}),
            ...(identity.team ? { team: identity.team } : {}),
          },
        };
      },
    },
  };
}
