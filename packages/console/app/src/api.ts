/** The console's own API (same origin, the session cookie rides along). */
const BASE = new URL("./api/", document.baseURI).pathname;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const listeners = new Set<() => void>();
/** Called when any request answers 401: the session ended, show the sign-in. */
export function onSignedOut(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function apiUrl(path: string): string {
  return BASE + path.replace(/^\//, "");
}

/** A JSON request; unwraps `{data}` envelopes; throws `ApiError` with the envelope's code and message. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(apiUrl(path), {
    method: init.method ?? "GET",
    credentials: "same-origin",
    headers: init.body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; type?: string } } | undefined)?.error;
    if (response.status === 401 && path !== "session") for (const listener of listeners) listener();
    throw new ApiError(response.status, error?.code ?? error?.type ?? "HTTP_ERROR", error?.message ?? `HTTP ${response.status}`);
  }
  if (parsed !== null && typeof parsed === "object" && "data" in parsed) return (parsed as { data: T }).data;
  return parsed as T;
}

/** What a role may do (the admin API enforces the same rule; the console only hides what a role cannot do). */
export type Permission =
  | "keys.read"
  | "keys.write"
  | "teams.read"
  | "teams.write"
  | "usage.read"
  | "audit.read"
  | "console.read"
  | "accounts.write";

export interface SessionInfo {
  signedIn: true;
  expiresAt: string;
  actor: { kind: "admin-key" | "user"; id: string; hint?: string };
  role: string;
  permissions: Permission[];
  /** The identity provider of a single sign-on session. */
  provider?: string;
  features: { accounts: boolean; accountControl: boolean };
}

/** The answer while signed out: whether single sign-on is offered. */
export interface SignedOutInfo {
  signedIn: false;
  sso?: { name: string };
}

export const can = (session: Pick<SessionInfo, "permissions">, permission: Permission) => session.permissions.includes(permission);

export const formatUsd = (value: number | undefined) =>
  `$${(value ?? 0).toFixed(value !== undefined && value > 0 && value < 0.01 ? 4 : 2)}`;
export const formatNumber = (value: number | undefined) => (value ?? 0).toLocaleString("en-US");
