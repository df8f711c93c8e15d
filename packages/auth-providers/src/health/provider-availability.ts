import { type Logger, createConsoleLogger } from "@conduit-ai/server-core";

/** What a provider reports after each request to its identity provider: answered, or not. */
export type ReachabilityReport = (reachable: boolean, host: string | undefined) => void;

/**
 * Whether a provider's identity provider answers, from the requests the provider actually makes
 * (key set fetches, discovery, introspection, userinfo) — never from cache hits, which say
 * nothing about the identity provider. An outage is logged once when it starts and once when it
 * ends, each a `warn` line naming the provider type and host; `up` feeds the
 * `conduit_auth_provider_up{provider}` gauge and readiness.
 *
 * @example
 * const availability = new ProviderAvailability("jwt", logger);
 * availability.report(false, "id.example.com"); // warn: identity provider unreachable
 * availability.report(true, "id.example.com"); // warn: identity provider reachable again
 */
export class ProviderAvailability {
  #outage: { host: string | undefined; since: number } | undefined;
  #lastHost: string | undefined;

  constructor(
    readonly provider: string,
    private readonly logger: Logger = createConsoleLogger("warn"),
  ) {}

  /** False while an outage is in progress (from its first failed request to the next answered one). */
  get up(): boolean {
    return this.#outage === undefined;
  }

  /** The host of the outage in progress, or the last host reached. */
  get host(): string | undefined {
    return this.#outage?.host ?? this.#lastHost;
  }

  /** Epoch ms when the outage in progress started. */
  get downSince(): number | undefined {
    return this.#outage?.since;
  }

  /** Records one request's outcome; logs only the transitions. */
  readonly report: ReachabilityReport = (reachable, host) => {
    if (reachable) {
      if (host) this.#lastHost = host;
      const outage = this.#outage;
      if (!outage) return;
      this.#outage = undefined;
      this.logger.warn(
        { provider: this.provider, host: host ?? outage.host, downForMs: Date.now() - outage.since },
        "identity provider reachable again",
      );
      return;
    }
    if (this.#outage) return;
    const failedHost = host ?? this.#lastHost;
    this.#outage = { host: failedHost, since: Date.now() };
    this.logger.warn(
      { provider: this.provider, host: failedHost },
      "identity provider unreachable: tokens not in the cache are refused with 503",
    );
  };
}
