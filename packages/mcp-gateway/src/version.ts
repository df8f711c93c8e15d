import manifest from "../package.json" with { type: "json" };

/**
 * This package's version (the gateway's `serverInfo.version` and its upstream clients'). Read from
 * package.json; the build replaces `dist/version.js` with the literal (tools/scripts/stamp-version.mjs).
 */
export const VERSION: string = manifest.version;
