import { Counter } from "./counter.js";
import { Gauge } from "./gauge.js";
import { Histogram } from "./histogram.js";
import type { Metric } from "./metric-types.js";

/** prom-client's buckets for `nodejs_gc_duration_seconds`: dashboards built for it read ours. */
const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];
const SECOND_NS = 1e9;

type NodeProcess = Pick<NodeJS.Process, "cpuUsage" | "memoryUsage" | "uptime" | "version">;
type PerfHooks = typeof import("node:perf_hooks");

/** `process` when this is Node (or a runtime that has its CPU and memory figures); undefined on the web. */
function nodeProcess(): NodeProcess | undefined {
  const candidate = (globalThis as { process?: Partial<NodeProcess> }).process;
  return typeof candidate?.cpuUsage === "function" && typeof candidate.memoryUsage === "function" ? (candidate as NodeProcess) : undefined;
}

/** A counter exposing a cumulative figure read at scrape time (CPU seconds since the process started). */
function cumulative(name: string, help: string, read: () => number): Counter {
  return new Counter({
    name,
    help,
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** Figures that need `node:perf_hooks`: event-loop delay and GC pauses (absent where it is not). */
function perfHookMetrics(hooks: PerfHooks): Metric[] {
  const metrics: Metric[] = [];
  const delay = hooks.monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // The same figures prom-client gives, reset after each scrape so each covers the last interval.
  const figures: Array<[string, string, () => number]> = [
    ["min", "The minimum recorded event loop delay.", () => delay.min],
    ["max", "The maximum recorded event loop delay.", () => delay.max],
    ["mean", "The mean of the recorded event loop delays.", () => delay.mean],
    ["stddev", "The standard deviation of the recorded event loop delays.", () => delay.stddev],
    ["p50", "The 50th percentile of the recorded event loop delays.", () => delay.percentile(50)],
    ["p90", "The 90th percentile of the recorded event loop delays.", () => delay.percentile(90)],
    ["p99", "The 99th percentile of the recorded event loop delays.", () => delay.percentile(99)],
  ];
  let gauges: Gauge[] = [];
  const readAll = () => {
    // An empty histogram reports min as 9.2e18 ns and the rest as NaN: show 0 until it has a sample.
    const empty = delay.count === 0;
    for (const [index, [, , read]] of figures.entries()) gauges[index]?.set(empty ? 0 : read() / SECOND_NS);
    delay.reset();
  };
  // The first gauge's collect reads every figure: it runs before any of them is read (registration order).
  gauges = figures.map(
    ([figure, help], index) =>
      new Gauge({ name: `nodejs_eventloop_lag_${figure}_seconds`, help, ...(index === 0 ? { collect: readAll } : {}) }),
  );
  metrics.push(...gauges);

  const kinds: Record<number, string> = {
    [hooks.constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [hooks.constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
    [hooks.constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
    [hooks.constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
  };
  const gc = new Histogram<"kind">({
    name: "nodejs_gc_duration_seconds",
    help: "Garbage collection duration by kind, one of major, minor, incremental or weakcb.",
    labelNames: ["kind"],
    buckets: GC_BUCKETS,
  });
  const observer = new hooks.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1];
      // Four kinds at most: the label stays bounded whatever V8 reports.
      if (kind !== undefined) gc.observe({ kind }, entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  metrics.push(gc);
  return metrics;
}

/** Figures every Node process has without `node:perf_hooks`. */
function basicMetrics(node: NodeProcess): Metric[] {
  const startTime = Math.round(Date.now() / 1000 - node.uptime());
  const [major = "", minor = "", patch = ""] = node.version.slice(1).split(".");
  const memory = () => node.memoryUsage();
  return [
    cumulative("process_cpu_user_seconds_total", "Total user CPU time spent in seconds.", () => node.cpuUsage().user / 1e6),
    cumulative("process_cpu_system_seconds_total", "Total system CPU time spent in seconds.", () => node.cpuUsage().system / 1e6),
    cumulative("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", () => {
      const usage = node.cpuUsage();
      return (usage.user + usage.system) / 1e6;
    }),
    new Gauge({
      name: "process_start_time_seconds",
      help: "Start time of the process since unix epoch in seconds.",
      collect() {
        this.set(startTime);
      },
    }),
    new Gauge({
      name: "process_resident_memory_bytes",
      help: "Resident memory size in bytes.",
      collect() {
        this.set(node.memoryUsage.rss?.() ?? memory().rss);
      },
    }),
    new Gauge({
      name: "nodejs_heap_size_total_bytes",
      help: "Process heap size from Node.js in bytes.",
      collect() {
        this.set(memory().heapTotal);
      },
    }),
    new Gauge({
      name: "nodejs_heap_size_used_bytes",
      help: "Process heap size used from Node.js in bytes.",
      collect() {
        this.set(memory().heapUsed);
      },
    }),
    new Gauge({
      name: "nodejs_external_memory_bytes",
      help: "Node.js external memory size in bytes.",
      collect() {
        this.set(memory().external);
      },
    }),
    new Gauge({
      name: "nodejs_eventloop_lag_seconds",
      help: "Lag of event loop in seconds.",
      // How long a callback queued now waits for its turn: the lag a request arriving now would see.
      async collect() {
        const start = performance.now();
        await new Promise<void>((resolve) => setImmediate(resolve));
        this.set((performance.now() - start) / 1000);
      },
    }),
    new Gauge<"version" | "major" | "minor" | "patch">({
      name: "nodejs_version_info",
      help: "Node.js version info.",
      labelNames: ["version", "major", "minor", "patch"],
      collect() {
        this.set({ version: node.version, major, minor, patch }, 1);
      },
    }),
  ];
}

let shared: Promise<Metric[]> | undefined;

/**
 * The process figures prom-client's default metrics give, under the same names, help and
 * labels (CPU, resident memory, heap, event-loop lag, GC by kind, Node version): one set per
 * process, shared by every server's registry. Empty where `process` has no such figures (a web
 * runtime); `node:perf_hooks` is imported only here, on first use, so the fetch entry never loads it.
 *
 * @example
 * for (const metric of await processMetrics()) registry.registerMetric(metric);
 */
export function processMetrics(): Promise<Metric[]> {
  shared ??= (async () => {
    const node = nodeProcess();
    if (node === undefined) return [];
    const metrics = basicMetrics(node);
    try {
      // The specifier is a variable so bundlers of the fetch entry (Workers, Deno) leave the module out of the graph.
      const perfHooks = "node:perf_hooks";
      metrics.push(...perfHookMetrics((await import(/* @vite-ignore */ perfHooks)) as PerfHooks));
    } catch {
      // A runtime with `process` but without event-loop or GC observation: the basic figures still count.
    }
    return metrics;
  })();
  return shared;
}
