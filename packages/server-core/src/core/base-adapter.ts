import { EventEmitter } from "node:events";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { ServerAdapter } from "../contracts/adapter.js";
import type { RequiredServerAdapterConfig, ServerAdapterConfig } from "../contracts/config.js";
import type { ServerFramework } from "../contracts/http.js";
import type { ServerLifecycleState, ServerStatus } from "../contracts/lifecycle.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { RegisteredRoute, RouteDefinition, RouteGroup } from "../contracts/route.js";
import type { Runtime } from "../contracts/runtime.js";
import { resolveConfig } from "../config/resolve-config.js";
import { AlreadyRunningError, NotRunningError, ServerStartError } from "../errors/server-errors.js";
import { InvalidLifecycleStateError } from "../errors/server-errors.js";
import { canTransition } from "./lifecycle-state.js";
import { createConsoleLogger } from "./logger.js";
import { joinPaths } from "./path-pattern.js";
import { RequestHandler } from "./request-handler.js";
import { builtInHealthRoutes } from "../routes/built-in-health.js";
import { installMetrics } from "../metrics/install-metrics.js";
import { createDefaultMiddleware } from "../middleware/default-stack.js";

/** Options of the adapter itself, beside the server configuration. */
export interface AdapterOptions {
  /** Install the default middleware stack (request id, timing, errors, security headers, logging, compression, CORS, rate limit). Default true; benchmarks turn it off. */
  defaultMiddleware?: boolean;
}

export type BeforeCloseHook = (context: { drainTimeoutMs: number }) => Promise<void> | void;

const delay = (ms: number) => new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms).unref());

/**
 * Everything an adapter shares: configuration, route and middleware registration,
 * lifecycle, connection tracking and graceful shutdown. A framework adapter only
 * builds its app (`createApp`) and its Node server (`createHttpServer`), and
 * translates requests through `this.handler`.
 */
export abstract class BaseServerAdapter<TApp> extends EventEmitter implements ServerAdapter<TApp> {
  abstract readonly framework: ServerFramework;
  readonly handler: RequestHandler;
  protected readonly config: RequiredServerAdapterConfig;
  private state: ServerLifecycleState = "uninitialized";
  private app: TApp | undefined;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private startedAt = 0;
  private boundAddress: { port: number; host: string } | undefined;
  /** Routes the current app mounted natively; later ones are matched by the core. */
  private readonly mounted = new Set<RegisteredRoute>();
  private readonly beforeCloseHooks = new Set<BeforeCloseHook>();

  constructor(
    readonly runtime: Runtime | undefined,
    config: ServerAdapterConfig = {},
    options: AdapterOptions = {},
  ) {
    super();
    this.config = resolveConfig(config);
    this.handler = new RequestHandler(this.config, this);
    this.handler.logger = createConsoleLogger(this.config.logging.enabled ? "warn" : "silent");
    if (options.defaultMiddleware !== false) for (const middleware of createDefaultMiddleware(this.config, this.handler)) this.registerMiddleware(middleware);
    if (!this.config.disableBuiltInHealth) for (const route of builtInHealthRoutes(this)) this.registerRoute(route);
    // Metrics: a per-server registry, a first-in-line middleware and `${basePath}/metrics`.
    if (this.config.enableMetrics) installMetrics(this);
  }

  /** Builds a fresh framework app; `mount` is called for every route known now. */
  protected abstract createApp(routes: RegisteredRoute[]): TApp;
  /** A Node HTTP server (not yet listening) serving the app. */
  protected abstract createHttpServer(app: TApp): Server | Promise<Server>;
  /** Releases framework resources after the server closed (e.g. `fastify.close()`). */
  protected async disposeApp(_app: TApp): Promise<void> {}

  /** True for routes the native router serves; the adapter's fallback sends the rest to the core. */
  protected isMounted(route: RegisteredRoute): boolean {
    return this.mounted.has(route);
  }

  async initialize(): Promise<void> {
    if (this.state !== "uninitialized" && this.state !== "stopped" && this.state !== "error") {
      if (this.state === "initialized") return;
      throw new InvalidLifecycleStateError(`Cannot initialize while ${this.state}`);
    }
    this.transition("initializing");
    try {
      const routes = this.handler.routes.routes();
      this.mounted.clear();
      this.app = this.createApp(routes);
      for (const route of routes) this.mounted.add(route);
    } catch (error) {
      this.transition("error");
      throw new ServerStartError(`Framework ${this.framework} failed to initialize`, { code: "FRAMEWORK_INIT_FAILED", cause: error });
    }
    this.transition("initialized");
    this.handler.emitSafe("initialized", {
      config: this.config,
      routeCount: this.handler.routes.size,
      middlewareCount: this.handler.middleware.size,
    });
  }

  async start(): Promise<void> {
    if (["running", "starting", "draining", "stopping"].includes(this.state)) {
      throw new AlreadyRunningError(`Server is ${this.state}`);
    }
    if (this.state !== "initialized") await this.initialize();
    this.transition("starting");
    try {
      const server = await this.createHttpServer(this.app as TApp);
      server.on("connection", (socket: Socket) => {
        this.sockets.add(socket);
        socket.once("close", () => this.sockets.delete(socket));
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(this.config.port, this.config.host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      server.on("error", (error) => this.handler.emitSafe("error", { error, timestamp: Date.now() }));
      this.server = server;
      const address = server.address();
      this.boundAddress =
        typeof address === "object" && address !== null ? { port: address.port, host: this.config.host } : { port: this.config.port, host: this.config.host };
    } catch (error) {
      this.transition("error");
      throw new ServerStartError(`Failed to start ${this.framework} server on ${this.config.host}:${this.config.port}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.handler.draining = false;
    this.startedAt = Date.now();
    this.transition("running");
    this.handler.emitSafe("started", { port: this.boundAddress.port, host: this.boundAddress.host, timestamp: Date.now() });
  }

  /**
   * Graceful stop: refuse new connections, answer new requests on open sockets with 503,
   * let in-flight requests finish within `drainTimeoutMs`, then force-close (if
   * `forceClose`); the whole stop never exceeds `gracefulShutdownTimeoutMs`.
   */
  async stop(): Promise<void> {
    if (this.state !== "running") throw new NotRunningError(`Server is ${this.state}`);
    const server = this.server as Server;
    const { drainTimeoutMs, gracefulShutdownTimeoutMs, forceClose } = this.config.shutdown;
    const deadline = Date.now() + gracefulShutdownTimeoutMs;
    this.transition("draining");
    this.handler.draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Surfaces holding their own sockets (WebSocket) close them while HTTP drains.
    const hooks = Promise.all(
      [...this.beforeCloseHooks].map((hook) =>
        Promise.resolve()
          .then(() => hook({ drainTimeoutMs: Math.min(drainTimeoutMs, gracefulShutdownTimeoutMs) }))
          .catch((error) => this.handler.emitSafe("error", { error, timestamp: Date.now() })),
      ),
    );

    const drained = await Promise.race([this.handler.whenIdle(), delay(Math.min(drainTimeoutMs, gracefulShutdownTimeoutMs))]);
    this.transition("stopping");
    if (drained === "timeout" && !forceClose) {
      await Promise.race([this.handler.whenIdle(), delay(Math.max(0, deadline - Date.now()))]);
    }
    // Before any socket is ended: the hooks close theirs properly (WebSocket close frames).
    if (this.beforeCloseHooks.size > 0) await Promise.race([hooks, delay(Math.max(0, deadline - Date.now()))]);
    if (this.handler.inFlightCount === 0) {
      // Every response is written: end the (now idle) sockets gently so buffered bytes still reach clients.
      for (const socket of this.sockets) socket.end();
      await Promise.race([closed, delay(Math.max(0, Math.min(1_000, deadline - Date.now())))]);
    }
    this.destroySockets();
    await Promise.race([closed, delay(Math.max(0, deadline - Date.now()))]);
    await this.disposeApp(this.app as TApp).catch((error) => this.handler.emitSafe("error", { error, timestamp: Date.now() }));
    const uptime = Date.now() - this.startedAt;
    this.server = undefined;
    this.boundAddress = undefined;
    this.transition("stopped");
    this.handler.emitSafe("stopped", { uptime, timestamp: Date.now() });
  }

  private destroySockets(): void {
    this.server?.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    // Destroyed sockets emit `close` a tick later; they are gone for the count right now.
    this.sockets.clear();
  }

  /**
   * Runs `hook` at each `stop()` once draining begins (before remaining sockets are destroyed);
   * the stop waits for it within `gracefulShutdownTimeoutMs`. Returns the unregister function.
   *
   * @example
   * adapter.onBeforeClose(async ({ drainTimeoutMs }) => websockets.closeAll(1001, drainTimeoutMs));
   */
  onBeforeClose(hook: BeforeCloseHook): () => void {
    this.beforeCloseHooks.add(hook);
    return () => this.beforeCloseHooks.delete(hook);
  }

  registerRoute(route: RouteDefinition): void {
    const fullPath = route.absolute ? joinPaths(route.path) : joinPaths(this.config.basePath, route.path);
    this.handler.routes.add({ ...route, fullPath } as RegisteredRoute);
  }

  registerRouteGroup(group: RouteGroup): void {
    for (const route of group.routes) {
      const middleware = [...(group.middleware ?? []), ...(route.middleware ?? [])];
      this.registerRoute({
        ...route,
        path: route.absolute ? route.path : joinPaths(group.prefix, route.path),
        tags: route.tags ?? group.tags,
        ...(middleware.length > 0 ? { middleware } : {}),
      });
    }
  }

  registerMiddleware(middleware: MiddlewareDefinition): void {
    this.handler.middleware.add(middleware);
  }

  getStatus(): ServerStatus {
    const running = this.state === "running";
    return {
      running,
      state: this.state,
      uptime: running ? Date.now() - this.startedAt : 0,
      routeCount: this.handler.routes.size,
      middlewareCount: this.handler.middleware.size,
      activeConnections: this.sockets.size,
      framework: this.framework,
      ...(this.boundAddress ?? {}),
    };
  }

  listRoutes(): RegisteredRoute[] {
    return this.handler.routes.routes();
  }

  getConfig(): RequiredServerAdapterConfig {
    return this.config;
  }

  getLifecycleState(): ServerLifecycleState {
    return this.state;
  }

  /** Open TCP connections right now (idle keep-alive ones included). */
  getActiveConnectionCount(): number {
    return this.sockets.size;
  }

  getFrameworkInstance(): TApp {
    if (this.app === undefined) throw new InvalidLifecycleStateError("The framework app exists after initialize()");
    return this.app;
  }

  address(): { port: number; host: string } | undefined {
    return this.boundAddress;
  }

  /** The Node server while running (the WebSocket surface attaches to it). */
  getHttpServer(): Server | undefined {
    return this.server;
  }

  private transition(to: ServerLifecycleState): void {
    if (!canTransition(this.state, to)) throw new InvalidLifecycleStateError(`Illegal lifecycle transition ${this.state} → ${to}`);
    this.state = to;
  }
}
