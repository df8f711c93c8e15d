import manifest from "../package.json" with { type: "json" };

/**
 * This package's version (health endpoints, the OpenAPI `info.version` default), from package.json:
 * the esbuild bundle inlines the manifest at build time, so the published code reads no file.
 */
export const VERSION: string = manifest.version;
