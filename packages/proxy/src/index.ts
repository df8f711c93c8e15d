// @conduit-ai/proxy — the spec's "Proxy surfaces". Built by issue 11; see README.md for the plan.
export * from "./openai/index.js";
