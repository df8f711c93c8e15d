import type { ServerContext } from "@conduit-ai/server-core";
import type { ClientAdmission } from "../admission/client-admission.js";
import type { ResponseCache } from "../cache/response-cache.js";
import type { ProxyConfig } from "../config.js";
import type { AccountPool } from "../pool/account-pool.js";
import type { Relay } from "../relay/relay.js";
import type { ModelTable } from "../routing/model-table.js";
import type { ProxyTargets } from "../routing/targets.js";
import type { RelayMessages } from "../targets/anthropic/messages-relay.js";

/** What the proxy's own routes (Messages, count_tokens, `/accounts`, `/limits`) are built from. */
export interface ProxyRouteDeps {
  pool: AccountPool;
  config: ProxyConfig;
  relayMessages: RelayMessages;
  /** The pool's relay to `/v1/messages/count_tokens`. */
  relayCountTokens?: Relay;
  isClientAllowed: (ctx: ServerContext) => boolean;
  /** The `models` routing table (public names → targets and fallbacks). */
  models: ModelTable;
  /** What the routing table's names resolve to: the pool's Messages API and the runtime's providers. */
  targets: ProxyTargets;
  /** The AI surfaces' admission (client keys or the gate, and the per-credential limit). */
  admission: ClientAdmission;
  /** The exact response cache (`proxy.cache`), when configured. */
  cache?: ResponseCache;
  onWarning?: (message: string) => void;
  fetch?: typeof fetch;
}
