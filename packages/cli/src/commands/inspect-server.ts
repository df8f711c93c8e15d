import { parseServeOptions, type ServeOptions } from "../config-file.js";
import { type AssembledServer, assembleServer } from "../server-assembly.js";

/**
 * Assembles the server `conduit serve` would run with the same flags (`--config`,
 * `--framework`, …), without starting it, hands it to `inspect`, then releases it.
 */
export async function inspectServer<T>(
  argv: string[],
  env: NodeJS.ProcessEnv,
  usage: string,
  inspect: (assembled: AssembledServer, options: ServeOptions) => T | Promise<T>,
): Promise<T> {
  const options = parseServeOptions(argv, env, usage);
  const assembled = await assembleServer(options, env);
  try {
    return await inspect(assembled, options);
  } finally {
    await assembled.close();
  }
}

/** Takes boolean `flags` (e.g. `--yaml`) out of `argv`; the rest goes to the serve options parser. */
export function takeBooleanFlags<T extends string>(argv: string[], flags: readonly T[]): { present: Set<T>; rest: string[] } {
  const present = new Set<T>();
  const rest = argv.filter((argument) => {
    const flag = flags.find((name) => argument === `--${name}`);
    if (flag) present.add(flag);
    return flag === undefined;
  });
  return { present, rest };
}
