export const SERVER_LIFECYCLE_STATES = [
  "uninitialized",
  "initializing",
  "initialized",
  "starting",
  "running",
  "draining",
  "stopping",
  "stopped",
  "error",
] as const;
export type ServerLifecycleState = (typeof SERVER_LIFECYCLE_STATES)[number];

export interface ServerStatus {
  running: boolean;
  state: ServerLifecycleState;
  /** Milliseconds since the last start; 0 when not running. */
  uptime: number;
  routeCount: number;
  middlewareCount: number;
  activeConnections: number;
  port?: number;
  host?: string;
  framework: string;
}
