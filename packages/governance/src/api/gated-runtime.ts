import type { IncomingMessage } from "node:http";
import { BoundedCache } from "@conduit-ai/server-core/internal";
import type {
  DataStreamEvent,
  GateAdmission,
  GateSurface,
  GenerateRequest,
  Runtime,
  RuntimeCallContext,
  TokenUsage,
} from "@conduit-ai/server-core";
import type { GovernanceGate } from "../gate/governance-gate.js";
import { credentialOf } from "../key-secret.js";
import { estimateInputTokens, outputCapOf } from "./api-gate-middleware.js";
import { apiRefusalError } from "./api-refusal.js";
import { gateTokensOf } from "./runtime-usage.js";

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
          metadata: { key: identity.keyId, ...(identity.team ? { team: identity.team } : {}) },
        };
      },
    },
  };
}

export interface GateRuntimeOptions {
  /** What the gate records the calls as (`ws`, `api`). */
  surface: GateSurface;
  /** Output tokens reserved when a request names no `maxTokens`. */
  defaultMaxOutputTokens: number;
  /** The caller's key digest from the call's context; none → the call is refused (401), never run unadmitted. */
  digestOf: (context: RuntimeCallContext | undefined) => string | undefined;
}

/**
 * The runtime as the gate sees it: every `generate` and `stream` call is admitted with its own
 * estimate (input, and `maxTokens` or the default) for the key its context names, and settled
 * from its usage — a failure releases the reservation, a caller gone mid-call keeps it. The one
 * adapter between the gate and the runtime for surfaces that call the runtime themselves (the
 * `/ws` messages, the `/api/ai` workflows and their several calls per request).
 *
 * @example
 * const gated = gateRuntime(gate, runtime, { surface: "api", defaultMaxOutputTokens: 4096, digestOf: (context) => digestOfCaller(context?.user) });
 */
export function gateRuntime(gate: GovernanceGate, runtime: Runtime, options: GateRuntimeOptions): Runtime {
  const admit = async (request: GenerateRequest, context: RuntimeCallContext | undefined) => {
    const digest = options.digestOf(context);
    const maxOutputTokens = outputCapOf(request, options.defaultMaxOutputTokens);
    const estimatedInputTokens = estimateInputTokens(request as never);
    const decision = digest
      ? await gate.admitDigest(digest, {
          surface: options.surface,
          ...(request.model ? { model: request.model } : {}),
          estimatedInputTokens,
          maxOutputTokens,
          ...(context?.signal ? { signal: context.signal } : {}),
        })
      : await gate.admit({ credential: undefined, surface: options.surface, estimatedInputTokens });
    if ("refused" in decision) throw apiRefusalError(decision);
    return { decision, estimatedInputTokens, maxOutputTokens };
  };
  const settle = (admission: GateAdmission, model: string, usage: TokenUsage, started: number, failed: boolean) =>
    admission.settle({
      model,
      ...gateTokensOf(usage),
      status: failed ? 500 : 200,
      latencyMs: performance.now() - started,
    });

  return Object.create(runtime, {
    generate: {
      value: async (request: GenerateRequest, context?: RuntimeCallContext) => {
        const { decision } = await admit(request, context);
        const started = performance.now();
        try {
          const result = await runtime.generate(request, context);
          await settle(decision, result.model, result.usage, started, false).catch(() => undefined);
          return result;
        } catch (error) {
          if (context?.signal?.aborted && decision.settleAtReservation) {
            // Gone before the answer: the call may have reached its provider, so the reservation stands.
            const named = request.model ? { model: request.model } : {};
            await decision.settleAtReservation({ ...named, status: 499, latencyMs: performance.now() - started }).catch(() => undefined);
          } else await decision.release().catch(() => undefined);
          throw error;
        }
      },
    },
    stream: {
      value: (request: GenerateRequest, context?: RuntimeCallContext): AsyncIterable<DataStreamEvent> =>
        (async function* gatedStream() {
          const { decision, estimatedInputTokens, maxOutputTokens } = await admit(request, context);
          const started = performance.now();
          let usage: TokenUsage | undefined;
          let failed = false;
          try {
            for await (const event of runtime.stream(request, context)) {
              const record = event as DataStreamEvent & { usage?: TokenUsage; data?: { usage?: TokenUsage } };
              if (record.type === "finish") usage = record.usage ?? record.data?.usage ?? usage;
              if (record.type === "error") failed = true;
              yield event;
            }
          } finally {
            // A client that left makes the runtime end in an abort error: no failure of the call, whose reservation stands.
            if (context?.signal?.aborted) failed = false;
            if (failed && !usage) await decision.release().catch(() => undefined);
            else if (!usage && decision.settleAtReservation) {
              // A client gone before the finish: the reservation stands, exactly as reserved.
              const named = request.model ? { model: request.model } : {};
              await decision.settleAtReservation({ ...named, status: 200, latencyMs: performance.now() - started }).catch(() => undefined);
            } else {
              const charged = usage ?? { inputTokens: estimatedInputTokens, outputTokens: maxOutputTokens, totalTokens: 0 };
              await settle(decision, request.model ?? "unknown", charged, started, failed).catch(() => undefined);
            }
          }
        })(),
    },
  }) as Runtime;
}
