import { COMMANDS } from "./commands/command-table.js";
import { ProviderFailure } from "./commands/generate-command.js";
import { terminalStyle } from "./terminal-style.js";
import { CommandExit, UsageError } from "./usage-error.js";
import { VERSION } from "./version.js";

function overview(): string {
  const list = Object.entries(COMMANDS).map(([commandName, { summary }]) => `  ${commandName.padEnd(10)} ${summary}`);
  return `Usage: conduit <command> [options]\n\nCommands:\n${list.join("\n")}\n\nOptions:\n  --help, -h     help (also after a command: conduit serve --help)\n  --version, -v  the version of @conduit-ai/cli`;
}

/** Errors are one line naming the problem (red on a terminal); usage mistakes exit 2, failures 1. */
function failure(error: unknown, commandName: string, args: string[], env: NodeJS.ProcessEnv): number {
  if (error instanceof CommandExit) return error.code;
  const style = terminalStyle(process.stderr, env, { json: args.includes("--json") });
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) {
    const [first, ...more] = message.split("\n");
    console.error(style.red(more.length > 0 ? `${first} (see conduit ${commandName} --help)` : message));
    return 2;
  }
  const known = error instanceof ProviderFailure;
  console.error(style.red(known ? message : `conduit failed: ${message.split("\n")[0]}`));
  return 1;
}

/**
 * `conduit <args>`: prints to the console and resolves with the exit code when the command line
 * decides it (help, version, a usage mistake, a failure), or with `undefined` once the command ran:
 * the process then lives as long as what the command started (a server) and exits with
 * `process.exitCode`. Separate from the bin so that tests can run the command line in-process.
 *
 * @example
 * const code = await main(process.argv.slice(2), process.env);
 * if (code !== undefined) process.exit(code);
 */
export async function main(args: string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const [name, ...argv] = args.filter((argument, index) => !(index === 0 && argument === "--"));
  const wantsHelp = (commandArgs: string[]) => commandArgs.includes("--help") || commandArgs.includes("-h");
  if (name === "--version" || name === "-v") {
    console.log(VERSION);
    return 0;
  }
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    // `conduit` alone is a usage mistake; asking for help is not.
    (name === undefined ? console.error : console.log)(overview());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(", ")}; see conduit --help)`);
    return 2;
  }
  if (command.usage !== undefined && wantsHelp(argv)) {
    console.log(command.usage);
    return 0;
  }
  try {
    await command.run(
      argv.filter((argument, index) => !(index === 0 && argument === "--")),
      env,
    );
    return undefined;
  } catch (error) {
    return failure(error, name, args, env);
  }
}
