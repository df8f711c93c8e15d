import type { RequiredServerAdapterConfig } from "./config.js";

export interface ServerAdapterEvents {
  initialized: { config: RequiredServerAdapterConfig; routeCount: number; middlewareCount: number };
  /** `mounted`: served by a host app's server (`markMounted`), which has no port of its own (0) here. */
  started: { port: number; host: string; timestamp: number; mounted?: boolean };
  stopped: { uptime: number; timestamp: number };
  request: { requestId: string; method: string; path: string; timestamp: number };
  response: { requestId: string; statusCode: number; duration: number; timestamp: number };
  error: { requestId?: string; error: Error; timestamp: number };
}

export type ServerAdapterEventName = keyof ServerAdapterEvents;
