import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { TICK_SPACINGS, type TimeAxis, timeLabel, timeRange } from "./chart-axes.js";

/**
 * A time series chart (uPlot): `x` in epoch seconds, one line per series, the time axis as
 * `axis` says (`day`: dates; `clock`: clock times). The shown range and tick labels are also
 * written on the element (`data-x-min`, `data-x-max`, `data-x-labels`): the canvas has no text to read.
 */
export function Chart(props: {
  label: string;
  axis: TimeAxis;
  x: number[];
  series: Array<{ label: string; values: Array<number | null> }>;
  height?: number;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const colours = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2"];
  const shape = `${props.axis}|${props.series.map((series) => series.label).join("|")}`;

  useEffect(() => {
    const element = holder.current;
    if (!element) return undefined;
    const axis = props.axis;
    const options: uPlot.Options = {
      width: Math.max(320, element.clientWidth || 640),
      height: props.height ?? 220,
      series: [
        { value: (_plot, value) => (value === null ? "" : timeLabel(axis, value)) },
        ...props.series.map((series, index) => ({ label: series.label, stroke: colours[index % colours.length], width: 2 })),
      ],
      scales: { x: { time: true, range: (_plot, min, max) => timeRange(axis, min, max) } },
      axes: [
        {
          incrs: TICK_SPACINGS[axis],
          space: axis === "day" ? 50 : 70,
          values: (_plot, splits) => {
            const labels = splits.map((value) => timeLabel(axis, value));
            element.dataset.xLabels = labels.join(",");
            return labels;
          },
        },
        { size: 70 },
      ],
      hooks: {
        setScale: [
          (chart, key) => {
            if (key !== "x") return;
            element.dataset.xMin = String(chart.scales.x?.min ?? "");
            element.dataset.xMax = String(chart.scales.x?.max ?? "");
          },
        ],
      },
    };
    plot.current = new uPlot(options, [props.x, ...props.series.map((series) => series.values)] as uPlot.AlignedData, element);
    const resize = () => plot.current?.setSize({ width: Math.max(320, element.clientWidth), height: props.height ?? 220 });
    window.addEventListener("resize", resize);
    return () => {
      window.removeEventListener("resize", resize);
      plot.current?.destroy();
      plot.current = null;
    };
    // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt only when the axis or series change, data updates below
  }, [shape]);

  useEffect(() => {
    plot.current?.setData([props.x, ...props.series.map((series) => series.values)] as uPlot.AlignedData);
  });

  return <div class="chart" role="img" aria-label={props.label} ref={holder} data-axis={props.axis} />;
}
