import type { IncomingMessage } from "node:http";
import { within } from "@conduit-ai/server-core/middleware";
import type { WebSocketAuthConfig, WebSocketUser } from "./websocket-config.js";

export type UpgradeAuthResult = { ok: true; user?: WebSocketUser } | { ok: false; reason: string };

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function fromQuery(request: IncomingMessage, name: string | undefined): string | undefined {
  if (!name) return undefined;
  const value = new URL(request.url ?? "/", "http://localhost").searchParams.get(name);
  return value ?? undefined;
}

/** The credential for the strategy, or undefined when the request carries none. */
function extractCredential(request: IncomingMessage, auth: WebSocketAuthConfig): string | undefined {
  switch (auth.strategy) {
    case "bearer": {
      // As the HTTP middleware reads it: `Bearer <token>` on Authorization, a bare token allowed on a dedicated header.
      const name = (auth.headerName ?? "authorization").toLowerCase();
      const value = header(request, name) ?? "";
      const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
      const bare = name !== "authorization" && /^\S+$/.test(value.trim()) ? value.trim() : undefined;
      return match?.[1] ?? bare ?? fromQuery(request, auth.queryParam);
    }
    case "apiKey":
      return header(request, auth.headerName ?? "x-api-key")?.trim() || fromQuery(request, auth.queryParam);
    case "basic": {
      const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header(request, auth.headerName ?? "authorization") ?? "");
      if (!match?.[1]) return undefined;
      const decoded = Buffer.from(match[1], "base64").toString("utf8");
      return decoded.includes(":") ? decoded : undefined;
    }
    case "custom":
      return auth.extractToken?.(request) ?? undefined;
    default:
      return undefined;
  }
}

/**
 * Authenticates an upgrade request with the configured strategy. Never throws: a
 * missing credential, a null user, a validator that throws or exceeds `timeoutMs`
 * all refuse.
 *
 * @example
 * await authenticateUpgrade(request, { strategy: "bearer", validate: (token) => (token === "t" ? { id: "u1" } : null) });
 */
export async function authenticateUpgrade(request: IncomingMessage, auth: WebSocketAuthConfig): Promise<UpgradeAuthResult> {
  if (auth.strategy === "none") return { ok: true };
  if (!auth.validate) return { ok: false, reason: "No validator configured" };
  const credential = extractCredential(request, auth);
  if (!credential) return { ok: false, reason: "Authentication required" };
  try {
    const user = await within(Promise.resolve(auth.validate(credential, { request })), auth.timeoutMs ?? 5000);
    if (user === "timeout") return { ok: false, reason: "Authentication timed out" };
    return user && typeof user.id === "string" ? { ok: true, user } : { ok: false, reason: "Invalid credentials" };
  } catch {
    return { ok: false, reason: "Invalid credentials" };
  }
}
