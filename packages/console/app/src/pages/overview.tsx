import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.js";
import { Chart } from "../components/chart.js";
import { Panel, Problem, Stat } from "../components/common.js";

interface MetricSample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}
interface MetricJson {
  name: string;
  values: MetricSample[];
}

const HISTOGRAM = "conduit_http_request_duration_seconds";

/** Totals of one scrape: requests, 5xx, cumulative bucket counts by bound, active streams. */
interface Scrape {
  at: number;
  total: number;
  errors: number;
  buckets: Map<number, number>;
  streams: number;
}

function read(metrics: MetricJson[]): Scrape {
  const histogram = metrics.find((metric) => metric.name === HISTOGRAM);
  const scrape: Scrape = { at: Date.now() / 1000, total: 0, errors: 0, buckets: new Map(), streams: 0 };
  for (const sample of histogram?.values ?? []) {
    if (sample.metricName === `${HISTOGRAM}_count`) {
      scrape.total += sample.value;
      if (String(sample.labels.status).startsWith("5")) scrape.errors += sample.value;
    } else if (sample.metricName === `${HISTOGRAM}_bucket`) {
      const bound = sample.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
      scrape.buckets.set(bound, (scrape.buckets.get(bound) ?? 0) + sample.value);
    }
  }
  scrape.streams = metrics.find((metric) => metric.name === "conduit_active_streams")?.values[0]?.value ?? 0;
  return scrape;
}

/** The latency quantile (seconds) of the requests between two scrapes, from the histogram's buckets. */
function quantile(previous: Scrape | undefined, current: Scrape, q: number): number | undefined {
  const bounds = [...current.buckets.keys()].sort((a, b) => a - b);
  const counts = bounds.map((bound) => (current.buckets.get(bound) ?? 0) - (previous?.buckets.get(bound) ?? 0));
  const total = counts[counts.length - 1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  for (let index = 0; index < bounds.length; index++) {
    if ((counts[index] ?? 0) >= rank) return bounds[index];
  }
  return undefined;
}

const ms = (seconds: number | undefined) =>
  seconds === undefined ? "–" : seconds === Number.POSITIVE_INFINITY ? "> 30 s" : `≤ ${Math.round(seconds * 1000)} ms`;

export function Overview() {
  const [error, setError] = useState<string>();
  const [figures, setFigures] = useState({
    rps: 0,
    errorRate: 0,
    p50: undefined as number | undefined,
    p99: undefined as number | undefined,
    streams: 0,
    total: 0,
  });
  const [history, setHistory] = useState<{ x: number[]; rps: number[]; errors: number[] }>({ x: [], rps: [], errors: [] });
  const last = useRef<Scrape | undefined>(undefined);

  useEffect(() => {
    let stopped = false;
    const tick = async () => {
      try {
        const current = read(await api<MetricJson[]>("metrics"));
        if (stopped) return;
        const previous = last.current;
        const seconds = previous ? Math.max(0.001, current.at - previous.at) : 1;
        const requests = previous ? current.total - previous.total : 0;
        const errors = previous ? current.errors - previous.errors : 0;
        const rps = previous ? requests / seconds : 0;
        setFigures({
          rps,
          errorRate: requests > 0 ? errors / requests : 0,
          p50: quantile(previous, current, 0.5),
          p99: quantile(previous, current, 0.99),
          streams: current.streams,
          total: current.total,
        });
        if (previous)
          setHistory((old) => ({
            x: [...old.x, current.at].slice(-120),
            rps: [...old.rps, rps].slice(-120),
            errors: [...old.errors, seconds > 0 ? errors / seconds : 0].slice(-120),
          }));
        last.current = current;
        setError(undefined);
      } catch (failure) {
        setError((failure as Error).message);
      }
    };
    void tick();
    const timer = setInterval(tick, 2000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  return (
    <Panel title="Overview">
      <Problem error={error} />
      <div class="stats">
        <Stat label="Requests per second" value={figures.rps.toFixed(2)} testId="rps" />
        <Stat label="Error rate (5xx)" value={`${(figures.errorRate * 100).toFixed(1)} %`} testId="error-rate" />
        <Stat label="Latency p50" value={ms(figures.p50)} testId="p50" />
        <Stat label="Latency p99" value={ms(figures.p99)} testId="p99" />
        <Stat label="Active streams" value={String(figures.streams)} testId="active-streams" />
        <Stat label="Requests since start" value={String(figures.total)} testId="total-requests" />
      </div>
      <Chart
        label="Requests and 5xx errors per second, live"
        axis="clock"
        x={history.x}
        series={[
          { label: "requests/s", values: history.rps },
          { label: "5xx/s", values: history.errors },
        ]}
      />
    </Panel>
  );
}
