import manifest from "../package.json" with { type: "json" };

/**
 * This package's version (the tracer's instrumentation version). Read from
 * package.json; the build replaces `dist/version.js` with the literal (tools/scripts/stamp-version.mjs).
 */
export const VERSION: string = manifest.version;
