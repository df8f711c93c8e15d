/**
 * @conduit-ai/cli — the `conduit` command and the one server assembly it shares with the demo.
 */
export { type ConduitConfigFile, SERVE_USAGE, type ServeOptions, parseServeOptions, readConfigFile } from "./config-file.js";
export { type AssembledServer, assembleServer } from "./server-assembly.js";
export { runServe } from "./commands/serve-command.js";
export { UsageError } from "./usage-error.js";
export { type AuthSetup, setupAuth } from "./auth-setup.js";
