import type { Gate, GateIdentity, ServerContext } from "@conduit-ai/server-core";
import { BoundedCache, digestsEqual, parseAuthorization, secretDigest } from "@conduit-ai/server-core/internal";
import type { Caller } from "./caller.js";
import type { OAuthResource } from "./oauth-resource.js";

export interface CallerResolverOptions {
  /** `mcpGateway.clientKeys`. */
  clientKeys?: readonly string[] | undefined;
  /** Governance's gate: virtual keys. */
  gate?: Gate | undefined;
  /** A user the server's own auth middleware attached (`ctx.user`) is a caller. */
  serverAuth?: boolean | undefined;
  oauth?: OAuthResource | undefined;
  /** How long a virtual key's identity and policies are reused before the gate is asked again (default 5000 ms). */
  identityTtlMs?: number | undefined;
}

export type Resolution = { caller: Caller } | { refused: "missing" | "invalid" };

/** The credential of a request: `Authorization: Bearer`, else `x-api-key`. */
export function credentialOf(ctx: Pick<ServerContext, "header">): string | undefined {
  const authorization = ctx.header("authorization");
  if (authorization) {
    const extraction = parseAuthorization(authorization, "Bearer");
    return extraction.kind === "token" ? extraction.token : undefined;
  }
  const apiKey = ctx.header("x-api-key")?.trim();
  return apiKey ? apiKey : undefined;
}

/**
 * Who calls the gateway, in this order: a user of the server's own auth; a client key (compared
 * in constant time by digest); a virtual key (the gate's identity with its MCP policies, reused
 * for `identityTtlMs`, counting nothing — tool calls are admitted separately); an OAuth access
 * token for this resource. Nothing matches: refused ("missing" without a credential, else "invalid").
 *
 * @example
 * const resolution = await resolver.resolve(ctx);
 * if ("refused" in resolution) return unauthorized(resolution.refused);
 */
export class CallerResolver {
  readonly #clientKeyDigests: Buffer[];
  readonly #identities: BoundedCache<GateIdentity | null>;

  constructor(private readonly options: CallerResolverOptions) {
    this.#clientKeyDigests = (options.clientKeys ?? []).map((key) => Buffer.from(secretDigest(key)));
    this.#identities = new BoundedCache({ maxEntries: 10_000, ttlMs: options.identityTtlMs ?? 5_000 });
  }

  async resolve(ctx: ServerContext): Promise<Resolution> {
    if (this.options.serverAuth && ctx.user) return { caller: { principal: `user:${ctx.user.id}`, kind: "server-auth" } };
    const credential = credentialOf(ctx);
    if (!credential) return { refused: "missing" };
    const digest = secretDigest(credential);
    const presented = Buffer.from(digest);
    // Every stored key is compared, whatever matched: the time says nothing about which one.
    let clientKey = false;
    for (const stored of this.#clientKeyDigests) if (digestsEqual(stored, presented)) clientKey = true;
    if (clientKey) return { caller: { principal: `client:${digest.slice(0, 16)}`, kind: "client-key" } };
    const identity = await this.#identity(credential, digest);
    if (identity) return { caller: { principal: `key:${identity.keyId}`, kind: "virtual-key", credential, identity } };
    const subject = await this.options.oauth?.validateToken(credential);
    if (subject) return { caller: { principal: `oauth:${subject.subject}`, kind: "oauth", accessToken: credential } };
    return { refused: "invalid" };
  }

  async #identity(credential: string, digest: string): Promise<GateIdentity | undefined> {
    const gate = this.options.gate;
    if (!gate) return undefined;
    const cached = this.#identities.get(digest);
    if (cached !== undefined) return cached ?? undefined;
    let identity: GateIdentity | undefined;
    if (gate.identifyCredential) identity = await gate.identifyCredential(credential);
    else {
      // A gate that cannot identify without counting: admitted and released at once.
      const decision = await gate.admit({ credential, surface: "mcp", estimatedInputTokens: 0, maxOutputTokens: 0 });
      if (!("refused" in decision)) {
        identity = decision.identity;
        await decision.release();
      }
    }
    this.#identities.set(digest, identity ?? null);
    return identity;
  }
}
