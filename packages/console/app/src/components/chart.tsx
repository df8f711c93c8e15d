import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/** A time series chart (uPlot): `x` in epoch seconds, one line per series. */
export function Chart(props: { label: string; x: number[]; series: Array<{ label: string; values: Array<number | null> }>; height?: number }) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const colours = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2"];
  const shape = props.series.map((series) => series.label).join("|");

  useEffect(() => {
    const element = holder.current;
    if (!element) return undefined;
    const options: uPlot.Options = {
      width: Math.max(320, element.clientWidth || 640),
      height: props.height ?? 220,
      series: [{}, ...props.series.map((series, index) => ({ label: series.label, stroke: colours[index % colours.length], width: 2 }))],
      axes: [{}, { size: 70 }],
    };
    plot.current = new uPlot(options, [props.x, ...props.series.map((series) => series.values)] as uPlot.AlignedData, element);
    const resize = () => plot.current?.setSize({ width: Math.max(320, element.clientWidth), height: props.height ?? 220 });
    window.addEventListener("resize", resize);
    return () => {
      window.removeEventListener("resize", resize);
      plot.current?.destroy();
      plot.current = null;
    };
    // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt only when the series change, data updates below
  }, [shape]);

  useEffect(() => {
    plot.current?.setData([props.x, ...props.series.map((series) => series.values)] as uPlot.AlignedData);
  });

  return <div class="chart" role="img" aria-label={props.label} ref={holder} />;
}
