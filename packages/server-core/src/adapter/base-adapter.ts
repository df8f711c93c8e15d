import { EventEmitter } from "node:events";
import type { Server } from "node:http";
import type { ServerAdapter } from "../contracts/adapter.js";
import type { RequiredServerAdapterConfig, ServerAdapterConfig } from "../contracts/config.js";
import type { ServerFramework } from "../contracts/http.js";
import type { ServerLifecycleState, ServerStatus } from "../contracts/lifecycle.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { RegisteredRoute, RouteDefinition, RouteGroup, RouteSchemas } from "../contracts/route.js";
import type { DependencyHealth, Runtime } from "../contracts/runtime.js";
import { type DependencyCheck, runDependencyChecks } from "../core/lifecycle/dependency-checks.js";
import { type BeforeCloseHook, drainAndClose } from "../core/lifecycle/drain-sequence.js";
import type { ServerTransport } from "../core/lifecycle/server-transport.js";
import type { RateLimiter } from "../middleware/rate-limit/rate-limiter.js";
import { resolveConfig } from "../config/resolve-config.js";
import { AlreadyRunningError, ConfigurationError, NotRunningError, ServerStartError, ServerStopError } from "../errors/server-errors.js";
import { InvalidLifecycleStateError } from "../errors/server-errors.js";
import { uptimeClock } from "../core/pipeline/clock.js";
import { canTransition } from "../core/lifecycle/lifecycle-state.js";
import { createConsoleLogger } from "../core/lifecycle/logger.js";
import { expandRouteGroup, toRegisteredRoute } from "../core/pipeline/route-registration.js";
import { RequestHandler } from "../core/pipeline/request-handler.js";
import { middlewareProblem } from "../core/pipeline/route-validation.js";
import { builtInHealthRoutes } from "../routes/built-in-health.js";
import { installMetrics } from "../metrics/install-metrics.js";
import { createDefaultMiddleware } from "../middleware/default-stack.js";

/** Options of the adapter itself, beside the server configuration. */
export interface AdapterOptions {
  /** Install the default middleware stack (request id, timing, errors, security headers, logging, compression, CORS, rate limit). Default true; benchmarks turn it off. */
  defaultMiddleware?: boolean;
}

export type { BeforeCloseHook } from "../core/lifecycle/drain-sequence.js";

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Everything an adapter shares: configuration, route and middleware registration,
 * lifecycle and graceful shutdown. A framework adapter builds its app (`createApp`) and
 * translates requests through `this.handler`; listening is `listen`'s job — on Node,
 * `NodeServerAdapter` (`@conduit-ai/server-core/node`) does it for every framework.
 *
 * @example
 * class MyAdapter extends BaseServerAdapter<MyApp> {
 *   readonly framework = "hono" as const;
 *   protected createApp(routes: RegisteredRoute[]) { return buildApp(this.handler, routes); }
 *   protected listen(): never { throw new ConfigurationError("mount it in a host app"); }
 * }
 */
export abstract class BaseServerAdapter<TApp> extends EventEmitter implements ServerAdapter<TApp> {
  abstract readonly framework: ServerFramework;
  readonly handler: RequestHandler;
  protected readonly config: RequiredServerAdapterConfig;
  private state: ServerLifecycleState = "uninitialized";
  private app: TApp | undefined;
  /** The listening server while running; undefined when mounted in a host app. */
  private transport: ServerTransport | undefined;
  /** Milliseconds running; a new clock at each start or mount. */
  private uptime: () => number = () => 0;
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
    if (this.config.enableMetrics) installMetrics(this, { access: this.config.metrics, basePath: this.config.basePath });
  }

  /** Builds a fresh framework app serving the routes known now (later ones reach the core through the app's fallback). */
  protected abstract createApp(routes: RegisteredRoute[]): TApp;
  /** Starts serving `app` on `config.port`/`config.host`; what it returns is what the drain closes. */
  protected abstract listen(app: TApp): Promise<ServerTransport>;
  /** Releases framework resources after the server closed (e.g. `fastify.close()`). */
  protected async disposeApp(_app: TApp): Promise<void> {}

  async initialize(): Promise<void> {
    if (this.state !== "uninitialized" && this.state !== "stopped" && this.state !== "error") {
      if (this.state === "initialized") return;
      throw new InvalidLifecycleStateError(`Cannot initialize while ${this.state}`);
    }
    this.transition("initializing");
    try {
      this.app = this.createApp(this.handler.routes.routes());
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
      this.transport = await this.listen(this.app as TApp);
    } catch (error) {
      this.transition("error");
      throw new ServerStartError(
        `Failed to start ${this.framework} server on ${this.config.host}:${this.config.port}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    this.enterRunning(this.transport.address);
  }

  /** `starting` → `running`, with a new uptime clock and the `started` event. */
  private enterRunning(address: { port: number; host: string }, mounted = false): void {
    this.handler.draining = false;
    this.uptime = uptimeClock();
    this.transition("running");
    this.handler.emitSafe("started", { ...address, timestamp: Date.now(), ...(mounted ? { mounted } : {}) });
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
    // What failed to close; the stop still closes everything else, then reports it (STOP_FAILED).
    const failures: unknown[] = [];
    const fail = (error: unknown) => {
      failures.push(error);
      this.handler.emitSafe("error", { error, timestamp: Date.now() });
    };
    await drainAndClose({
      handler: this.handler,
      shutdown: this.config.shutdown,
      // Undefined when mounted in a host app (`markMounted`): the host owns the server; the drain is the same.
      transport: this.transport,
      beforeClose: this.beforeCloseHooks,
      transition: (to) => this.transition(to),
      fail,
    });
    if (this.app !== undefined) await this.disposeApp(this.app).catch(fail);
    const uptime = this.uptime();
    this.transport = undefined;
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
    // No server to listen: the steps `start()` takes, without the socket (the host's app was built by the caller).
    if (this.state === "uninitialized") {
      this.transition("initializing");
      this.transition("initialized");
    }
    this.transition("starting");
    this.enterRunning({ port: 0, host: "" }, true);
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
    this.handler.routes.add(toRegisteredRoute(this.config.basePath, route as unknown as RouteDefinition));
  }

  registerRouteGroup(group: RouteGroup): void {
    const routes = expandRouteGroup(group);
    for (const shape of group.errorShapes ?? []) this.handler.errorShapes.add(shape);
    for (const route of routes) this.registerRoute(route);
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
      activeConnections: this.getActiveConnectionCount(),
      framework: this.framework,
      ...(this.transport?.address ?? {}),
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
    return this.transport?.connectionCount() ?? 0;
  }

  getFrameworkInstance(): TApp {
    if (this.app === undefined) throw new InvalidLifecycleStateError("The framework app exists after initialize()");
    return this.app;
  }

  address(): { port: number; host: string } | undefined {
    return this.transport?.address;
  }

  /** The Node server while running (the WebSocket surface attaches to it). */
  getHttpServer(): Server | undefined {
    return this.transport?.httpServer;
  }

  private transition(to: ServerLifecycleState): void {
    if (!canTransition(this.state, to)) throw new InvalidLifecycleStateError(`Illegal lifecycle transition ${this.state} → ${to}`);
    this.state = to;
  }
}
