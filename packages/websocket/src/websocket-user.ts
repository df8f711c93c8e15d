import type { AuthenticatedUser } from "@conduit-ai/server-core";
import type { WebSocketUser } from "./websocket-config.js";

/** The identity a WebSocket validator returned, as the `AuthenticatedUser` HTTP code sees. */
export function toAuthenticatedUser(user: WebSocketUser): AuthenticatedUser {
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
  return {
    id: user.id,
    ...(typeof user.email === "string" ? { email: user.email } : {}),
    roles: list(user.roles),
    permissions: list(user.permissions),
  };
}
