#!/usr/bin/env node
import { COMMANDS } from "./commands/command-table.js";
import { VERSION } from "./version.js";

const [name, ...argv] = process.argv.slice(2).filter((argument, index) => !(index === 0 && argument === "--"));
if (name === "--version" || name === "-v") {
  console.log(VERSION);
  process.exit(0);
}
const command = name === undefined ? undefined : COMMANDS[name];
if (!command) {
  const list = Object.entries(COMMANDS).map(([commandName, { summary }]) => `  ${commandName.padEnd(10)} ${summary}`);
  console.error(`${name === undefined ? "" : `Unknown command "${name}".\n`}Usage: conduit <command> [options]  (conduit --version prints the version)\n\nCommands:\n${list.join("\n")}`);
  process.exit(2);
}
await command.run(argv, process.env);
