#!/usr/bin/env node
import { COMMANDS } from "./commands/command-table.js";
import { ProviderFailure } from "./commands/generate-command.js";
import { terminalStyle } from "./terminal-style.js";
import { UsageError } from "./usage-error.js";
import { VERSION } from "./version.js";

function overview(): string {
  const list = Object.entries(COMMANDS).map(([commandName, { summary }]) => `  ${commandName.padEnd(10)} ${summary}`);
  return `Usage: conduit <command> [options]\n\nCommands:\n${list.join("\n")}\n\nOptions:\n  --help, -h     help (also after a command: conduit serve --help)\n  --version, -v  the version of @conduit-ai/cli`;
}

/** Errors are one line naming the problem (red on a terminal); usage mistakes exit 2, failures 1. */
function fail(error: unknown, commandName: string): never {
  const style = terminalStyle(process.stderr, process.env, { json: process.argv.includes("--json") });
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) {
    const [first, ...more] = message.split("\n");
    console.error(style.red(more.length > 0 ? `${first} (see conduit ${commandName} --help)` : message));
    process.exit(2);
  }
  const known = error instanceof ProviderFailure;
  console.error(style.red(known ? message : `conduit failed: ${message.split("\n")[0]}`));
  process.exit(1);
}

// `conduit routes | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => process.exit(error.code === "EPIPE" ? 0 : 1));

const [name, ...argv] = process.argv.slice(2).filter((argument, index) => !(index === 0 && argument === "--"));
const wantsHelp = (args: string[]) => args.includes("--help") || args.includes("-h");
if (name === "--version" || name === "-v") {
  console.log(VERSION);
  process.exit(0);
}
if (name === undefined || name === "--help" || name === "-h" || name === "help") {
  // `conduit` alone is a usage mistake; asking for help is not.
  (name === undefined ? console.error : console.log)(overview());
  process.exit(name === undefined ? 2 : 0);
}
const command = COMMANDS[name];
if (!command) {
  console.error(`Unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(", ")}; see conduit --help)`);
  process.exit(2);
}
if (command.usage !== undefined && wantsHelp(argv)) {
  console.log(command.usage);
  process.exit(0);
}
try {
  await command.run(
    argv.filter((argument, index) => !(index === 0 && argument === "--")),
    process.env,
  );
} catch (error) {
  fail(error, name);
}
