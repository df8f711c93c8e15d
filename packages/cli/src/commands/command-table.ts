import { runProxy } from "./proxy-command.js";
import { runServe } from "./serve-command.js";

/** One `conduit <name>` command: runs with the arguments after its name. */
export interface Command {
  summary: string;
  run(argv: string[], env: NodeJS.ProcessEnv): Promise<void>;
}

/** Every command of `conduit`, by name. A new command is one file in this folder and one line here. */
export const COMMANDS: Record<string, Command> = {
  serve: { summary: "start the server (the demo's assembly)", run: (argv, env) => runServe(argv, env) },
  proxy: { summary: "serve the vendor proxy of a config file's proxy section", run: (argv, env) => runProxy(argv, env) },
};
