import { EventEmitter } from "node:events";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { ServerAdapter } from "../contracts/adapter.js";
import type { RequiredServerAdapterConfig, ServerAdapterConfig } from "../contracts/config.js";
import type { ServerFramework } from "../contracts/http.js";
import type { ServerLifecycleState, ServerStatus } from "../contracts/lifecycle.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { RegisteredRoute, RouteDefinition, RouteGroup, RouteSchemas } from "../contracts/route.js";
import type { DependencyHealth, Runtime } from "../contracts/runtime.js";
import { type DependencyCheck, runDependencyChecks } from "./dependency-checks.js";
import { stopListening } from "./shutdown-steps.js";
import { within } from "./within.js";
import type { RateLimiter } from "../middleware/rate-limit/rate-limiter.js";
import { resolveConfig } from "../config/resolve-config.js";
import {
  AlreadyRunningError,
  ConfigurationError,
  NotRunningError,
  ServerStartError,
  ServerStopError,
  invalidRoute,
} from "../errors/server-errors.js";
import { InvalidLifecycleStateError } from "../errors/server-errors.js";
import { uptimeClock } from "./clock.js";
import { canTransition } from "./lifecycle-state.js";
import { createConsoleLogger } from "./logger.js";
import { joinPaths } from "./path-pattern.js";
import { RequestHandler } from "./request-handler.js";
import { middlewareProblem } from "./route-validation.js";
import { builtInHealthRoutes } from "../routes/built-in-health.js";
import { installMetrics } from "../metrics/install-metrics.js";
import { createDefaultMiddleware } from "../middleware/default-stack.js";

/** Options of the adapter itself, beside the server configuration. */
export interface AdapterOptions {
  /** Install the default middleware stack (request id, timing, errors, security headers, logging, compression, CORS, rate limit). Default true; benchmarks turn it off. */
  defaultMiddleware?: boolean;
}

export type BeforeCloseHook = (context: { drainTimeoutMs: number }) => Promise<void> | void;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Connections the kernel may queue before the server accepts them (capped by the kernel's
 * `net.core.somaxconn`, 4096 on current Linux). Node's default, 511, overflows when a burst of
 * clients arrives while the event loop is busy — 5 000 streams opened within a second dropped
 * SYNs, and the clients' retransmissions (1 s, 3 s, 7 s…) delayed or reset their streams.
 */
const LISTEN_BACKLOG = 4096;

/** How long streams interrupted by the shutdown get to deliver their final event before sockets are destroyed. */
const FINAL_EVENT_GRACE_MS = 1_000;

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
  /** Milliseconds running; a new clock at each start or mount. */
  private uptime: () => number = () => 0;
  private boundAddress: { port: number; host: string } | undefined;
  /** Routes the current app mounted natively; later ones are matched by the core. */
  private readonly mounted = new Set<RegisteredRoute>();
  private readonly beforeCloseHooks = new Set<BeforeCloseHook>();
  private readonly healthChecks = new Map<string, DependencyCheck>();

  constructor(
    readonly runtime: Runtime | undefined,
    config: ServerAdapterConfig = {},
    options: AdapterOptions = {},
  ) {
    super();
    this.config = resolveConfig(config);
    this.handler = new RequestHandler(this.config, this);
    this.handler.logger = createConsoleLogger(this.config.logging.enabled ? "warn" : "silent");
    if (options.defaultMiddleware !== false)
      for (const middleware of createDefaultMiddleware(this.config, this.handler)) this.registerMiddleware(middleware);
    const limiter = this.handler.rateLimiter;
    if (limiter) this.registerHealthCheck("rateLimitStore", () => limiter.health());
    if (!this.config.disableBuiltInHealth) for (const route of builtInHealthRoutes(this)) this.registerRoute(route);
    // Metrics: a per-server registry, a first-in-line middleware and `${basePath}/metrics`.
    if (this.config.enableMetrics) installMetrics(this);
  }

  /** Builds a fresh framework app; `mount` is called for every route known now. */
  protected abstract createApp(routes: RegisteredRoute[]): TApp;
  /** A Node HTTP server (not yet listening) serving the app. */
  protected abstract createHttpServer(app: TApp): Server | Promise<Server>;
  /**
   * Installs the shared Node guards: `guardNodeServer(server, this.handler)` from
   * `@conduit-ai/server-core/node`. Each adapter calls it, not this class, so the core's
   * main entry never loads `node:http` (a web-standard fetch handler runs without it).
   */
  protected abstract guardHttpServer(server: Server): void;
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
      // Parser errors, CONNECT, 100-continue and Host-less requests: answered alike on every adapter.
      this.guardHttpServer(server);
      server.on("connection", (socket: Socket) => {
        this.sockets.add(socket);
        socket.once("close", () => this.sockets.delete(socket));
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen({ port: this.config.port, host: this.config.host, backlog: LISTEN_BACKLOG }, () => {
          server.off("error", reject);
          resolve();
        });
      });
      server.on("error", (error) => this.handler.emitSafe("error", { error, timestamp: Date.now() }));
      this.server = server;
      const address = server.address();
      this.boundAddress =
        typeof address === "object" && address !== null
          ? { port: address.port, host: this.config.host }
          : { port: this.config.port, host: this.config.host };
    } catch (error) {
      this.transition("error");
      throw new ServerStartError(
        `Failed to start ${this.framework} server on ${this.config.host}:${this.config.port}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    this.handler.draining = false;
    this.uptime = uptimeClock();
    this.transition("running");
    this.handler.emitSafe("started", { port: this.boundAddress.port, host: this.boundAddress.host, timestamp: Date.now() });
  }

  /**
   * Graceful stop: refuse new connections, answer new requests on open keep-alive sockets with
   * 503 + `Connection: close` while in-flight requests and streams finish within
   * `drainTimeoutMs`; then streams still running get a final `error` event
   * (`SERVER_SHUTTING_DOWN`) and the rest is force-closed (if `forceClose`). The whole stop
   * never exceeds `gracefulShutdownTimeoutMs`, and keeps the process alive until it is done.
   */
  async stop(): Promise<void> {
    if (this.state !== "running") throw new NotRunningError(`Server is ${this.state}`);
    // Undefined when mounted in a host app (`markMounted`): the host owns the server; the drain is the same.
    const server = this.server;
    const { drainTimeoutMs, gracefulShutdownTimeoutMs, forceClose } = this.config.shutdown;
    const deadline = Date.now() + gracefulShutdownTimeoutMs;
    const remaining = () => Math.max(0, deadline - Date.now());
    this.transition("draining");
    this.handler.draining = true;
    const closed = server ? stopListening(server) : Promise.resolve();
    // What failed to close; the stop still closes everything else, then reports it (STOP_FAILED).
    const failures: unknown[] = [];
    const fail = (error: unknown) => {
      failures.push(error);
      this.handler.emitSafe("error", { error, timestamp: Date.now() });
    };
    // Surfaces holding their own sockets (WebSocket) close them while HTTP drains.
    const hooks = Promise.all(
      [...this.beforeCloseHooks].map((hook) =>
        Promise.resolve()
          .then(() => hook({ drainTimeoutMs: Math.min(drainTimeoutMs, gracefulShutdownTimeoutMs) }))
          .catch(fail),
      ),
    );

    const drained = await within(this.handler.whenIdle(), Math.min(drainTimeoutMs, gracefulShutdownTimeoutMs));
    this.transition("stopping");
    // Without forceClose, wait for the work up to the deadline, keeping a moment for the final events of open streams.
    const finalEventGrace = Math.min(FINAL_EVENT_GRACE_MS, gracefulShutdownTimeoutMs / 4);
    if (drained === "timeout" && !forceClose) {
      await within(this.handler.whenIdle(), remaining() - (this.handler.openStreamCount > 0 ? finalEventGrace : 0));
    }
    if (this.handler.openStreamCount > 0) {
      // Streams still running get their last word (an `error` event) before their sockets go.
      this.handler.interruptStreams();
      await within(this.handler.whenIdle(), Math.min(finalEventGrace, remaining()));
    }
    // Before any socket is ended: the hooks close theirs properly (WebSocket close frames).
    if (this.beforeCloseHooks.size > 0) await within(hooks, remaining());
    if (this.handler.inFlightCount === 0) {
      // Every response is written: end the (now idle) sockets gently so buffered bytes still reach clients.
      for (const socket of this.sockets) socket.end();
      await within(closed, Math.min(1_000, remaining()));
    }
    this.destroySockets();
    await within(closed, remaining());
    if (this.app !== undefined) await this.disposeApp(this.app).catch(fail);
    const uptime = this.uptime();
    this.server = undefined;
    this.boundAddress = undefined;
    if (failures.length > 0) {
      // Closed, but not cleanly: `start()` may try again from `error`.
      this.transition("error");
      throw new ServerStopError(`Stopping the ${this.framework} server failed: ${failures.map(messageOf).join("; ")}`, {
        cause: failures.length === 1 ? failures[0] : new AggregateError(failures),
      });
    }
    this.transition("stopped");
    this.handler.emitSafe("stopped", { uptime, timestamp: Date.now() });
  }

  /**
   * For the framework-native forms (Fastify plugin, Express router, Hono sub-app and fetch
   * handler, Koa middleware): the host app's server serves this core, so it is running from
   * now on (readiness says so), and `stop()` drains its requests and streams (503 for new ones,
   * a final event for open streams) without closing a server of its own.
   *
   * @example
   * const conduit = createAdapter(runtime, config);
   * conduit.markMounted();
   * hostApp.use((request, response) => handleNodeRequest(conduit.handler, request, response));
   */
  markMounted(): void {
    if (this.state === "running") return;
    if (this.state !== "uninitialized" && this.state !== "initialized" && this.state !== "stopped") {
      throw new InvalidLifecycleStateError(`Cannot mount while ${this.state}`);
    }
    // No server to listen: straight to running (the same steps `start()` takes, without the socket).
    this.state = "running";
    this.handler.draining = false;
    this.uptime = uptimeClock();
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

  /**
   * Adds a dependency to readiness (`/ready`, `/api/health/ready`, `/api/health/detailed`)
   * beside the runtime's; `undefined` from the check leaves it out. A `required` dependency
   * that is down makes the server not ready (503).
   *
   * @example
   * adapter.registerHealthCheck("sessions", async () => ({ status: (await store.ping()) ? "ok" : "down", required: true }));
   */
  registerHealthCheck(name: string, check: DependencyCheck): void {
    this.healthChecks.set(name, check);
  }

  /** @internal what readiness merges with the runtime's health. */
  checkDependencies(): Promise<Record<string, DependencyHealth>> {
    return runDependencyChecks(this.healthChecks);
  }

  /** The default stack's rate limiter (undefined when `rateLimit.enabled` is false or the stack is off). */
  get rateLimiter(): RateLimiter | undefined {
    return this.handler.rateLimiter;
  }

  registerRoute<S extends RouteSchemas | undefined = undefined, P extends string = string>(route: RouteDefinition<S, P>): void {
    if (typeof route !== "object" || route === null || typeof route.path !== "string")
      throw invalidRoute("a route needs a method, a path and a handler", { route: String(route) });
    const fullPath = route.absolute ? joinPaths(route.path) : joinPaths(this.config.basePath, route.path);
    this.handler.routes.add({ ...route, fullPath } as unknown as RegisteredRoute);
  }

  registerRouteGroup(group: RouteGroup): void {
    if (typeof group !== "object" || group === null || typeof group.prefix !== "string" || !Array.isArray(group.routes)) {
      throw invalidRoute("a route group needs a prefix and a list of routes", { prefix: String((group as RouteGroup | null)?.prefix) });
    }
    for (const shape of group.errorShapes ?? []) this.handler.errorShapes.add(shape);
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
    const problem = middlewareProblem(middleware);
    if (problem)
      throw new ConfigurationError(`Invalid middleware "${String((middleware as { name?: unknown } | null)?.name)}": ${problem}`);
    this.handler.middleware.add(middleware);
  }

  getStatus(): ServerStatus {
    const running = this.state === "running";
    return {
      running,
      state: this.state,
      uptime: running ? this.uptime() : 0,
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
