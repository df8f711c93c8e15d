/** Colours and progress for one output stream: on a TTY only, never with `NO_COLOR` or `--json`. */
export interface TerminalStyle {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
  /** Shows a spinner with `label` until the returned function is called (a no-op when disabled). */
  progress(label: string): () => void;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * The style of `stream` (usually `process.stdout` or `process.stderr`).
 *
 * @example
 * const style = terminalStyle(process.stderr, process.env, { json: false });
 * console.error(style.red("Conduit failed"));
 */
export function terminalStyle(
  stream: Pick<NodeJS.WriteStream, "isTTY" | "write">,
  env: NodeJS.ProcessEnv,
  options: { json?: boolean } = {},
): TerminalStyle {
  // https://no-color.org: present and not empty turns colour off.
  const enabled = stream.isTTY === true && !env.NO_COLOR && options.json !== true;
  const paint = (open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return {
    enabled,
    bold: paint(1, 22),
    dim: paint(2, 22),
    red: paint(31, 39),
    green: paint(32, 39),
    cyan: paint(36, 39),
    progress(label) {
      if (!enabled) return () => undefined;
      let frame = 0;
      const draw = () => stream.write(`\r${SPINNER[frame++ % SPINNER.length]} ${label}`);
      draw();
      const timer = setInterval(draw, 80);
      return () => {
        clearInterval(timer);
        stream.write("\r\u001b[K");
      };
    },
  };
}
