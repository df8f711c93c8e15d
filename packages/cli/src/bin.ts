#!/usr/bin/env node
import { main } from "./main.js";

// `conduit routes | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => process.exit(error.code === "EPIPE" ? 0 : 1));

const code = await main(process.argv.slice(2), process.env);
if (code !== undefined) process.exit(code);
