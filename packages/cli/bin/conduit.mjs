#!/usr/bin/env node
// The published bin: a committed file (so package managers can link it before a build) that runs the built command.
await import("../dist/bin.js");
