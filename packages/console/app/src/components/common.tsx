import type { ComponentChildren } from "preact";

/** A labelled bar (native `<progress>`: accessible, no inline style). */
export function Bar(props: { label: string; value: number; max: number; text?: string }) {
  const ratio = props.max > 0 ? Math.min(1, props.value / props.max) : 0;
  const level = ratio >= 0.9 ? "bar-high" : ratio >= 0.7 ? "bar-mid" : "bar-low";
  return (
    <div class="bar">
      <progress class={level} value={Math.min(props.value, props.max)} max={props.max > 0 ? props.max : 1} aria-label={props.label} />
      <span class="bar-text">{props.text ?? `${Math.round(ratio * 100)} %`}</span>
    </div>
  );
}

export function Status(props: { value: string }) {
  const value = props.value;
  const kind = /^\d+$/.test(value)
    ? value.startsWith("2")
      ? "ok"
      : value.startsWith("5")
        ? "down"
        : "warn"
    : value.replace(/[^a-z]/gi, "").toLowerCase();
  return <span class={`status status-${kind}`}>{value}</span>;
}

export function Panel(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="panel" aria-label={props.title}>
      <header class="panel-head">
        <h2>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

export function Problem(props: { error: string | undefined }) {
  return props.error ? (
    <p class="problem" role="alert">
      {props.error}
    </p>
  ) : null;
}

export function Stat(props: { label: string; value: string; testId: string }) {
  return (
    <div class="stat">
      <div class="stat-label">{props.label}</div>
      <div class="stat-value" data-testid={props.testId}>
        {props.value}
      </div>
    </div>
  );
}
