import { readFile, readdir } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { RouteDefinition, RouteGroup } from "../contracts/route.js";
import { rawResponse } from "../core/pipeline/raw-response.js";
import { resourceNotFound } from "../routes/route-support.js";

/** Content types by extension; a file with any other extension is never served. */
export const STATIC_CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** A content hash in a file name, as bundlers write it (`index-BxK3_9aQ.js`): such a file never changes. */
const HASHED_NAME = /[.-][A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

export interface StaticRoutesOptions {
  /** Where the files are served: `GET <prefix>` is the index, `GET <prefix>/<file>` each file. Absolute (outside `basePath`). */
  prefix: string;
  /** The folder of files; listed once, on the first request. */
  directory: string;
  /** File answering `GET <prefix>` and `GET <prefix>/` (default `index.html`). */
  index?: string;
  /** Headers on every answer of these routes (e.g. a Content-Security-Policy). */
  headers?: Record<string, string>;
  /** Middleware of these routes only (e.g. a session check). */
  middleware?: MiddlewareDefinition[];
  /**
   * `GET <prefix>` without the trailing slash: `serve` the index (default), or `redirect` (308) to
   * `<prefix>/` — needed when the index links its files relatively (`./assets/…`), which then
   * resolve under the prefix wherever it is mounted.
   */
  bareIndex?: "serve" | "redirect";
  /** Seconds a hashed file may be cached (default one year, `immutable`); other files are `no-cache`. */
  hashedMaxAgeSeconds?: number;
}

interface StaticFile {
  body: Uint8Array;
  contentType: string;
  cacheControl: string;
}

/** Every file under `directory` with a known extension, as `a/b.js` paths (forward slashes). */
async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && STATIC_CONTENT_TYPES[extname(entry.name)] !== undefined)
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

/**
 * Serves a folder of prebuilt files (a single-page app, its hashed assets) under an absolute
 * prefix, on every adapter alike. Only files found by listing the folder are served: a request
 * path is looked up in that list and never joined to a file system path, so `..`, encoded
 * slashes, or absolute paths cannot leave the folder; anything else is the 404 envelope.
 * Hashed names (`index-BxK3_9aQ.js`) get `Cache-Control: public, max-age=31536000, immutable`;
 * the rest `no-cache`, so a new build is picked up at once. Files are read once and kept.
 *
 * @example
 * server.registerRouteGroup(createStaticRoutes({ prefix: "/console", directory: "/srv/console", headers: { "content-security-policy": "default-src 'self'" } }));
 */
export function createStaticRoutes(options: StaticRoutesOptions): RouteGroup {
  const index = options.index ?? "index.html";
  const maxAge = options.hashedMaxAgeSeconds ?? 31_536_000;
  const prefix = `/${options.prefix.replace(/^\/+|\/+$/g, "")}`;
  let listing: Promise<Set<string>> | undefined;
  const files = new Map<string, Promise<StaticFile>>();

  const load = (name: string): Promise<StaticFile> => {
    let file = files.get(name);
    if (file === undefined) {
      file = readFile(join(options.directory, ...name.split("/"))).then((bytes) => ({
        body: new Uint8Array(bytes),
        contentType: STATIC_CONTENT_TYPES[extname(name)] as string,
        cacheControl: HASHED_NAME.test(name) && name !== index ? `public, max-age=${maxAge}, immutable` : "no-cache",
      }));
      // A failed read is not cached: the next request tries again.
      file.catch(() => files.delete(name));
      files.set(name, file);
    }
    return file;
  };

  const serve = async (ctx: ServerContext, name: string) => {
    listing ??= listFiles(options.directory).then((names) => new Set(names));
    const known = await listing.catch((error: unknown) => {
      listing = undefined;
      throw error;
    });
    if (!known.has(name)) throw resourceNotFound("ASSET_NOT_FOUND", "No such file", { path: ctx.path });
    const file = await load(name);
    return rawResponse(file.body, {
      headers: { ...options.headers, "content-type": file.contentType, "cache-control": file.cacheControl },
    });
  };

  const route = (path: string, handler: RouteDefinition["handler"]): RouteDefinition => ({
    method: "GET",
    path,
    absolute: true,
    summary: `Static files under ${prefix}`,
    tags: ["static"],
    handler,
  });

  return {
    prefix,
    ...(options.middleware ? { middleware: options.middleware } : {}),
    routes: [
      route(prefix, (ctx: ServerContext) => {
        if (options.bareIndex !== "redirect" || ctx.path.endsWith("/")) return serve(ctx, index);
        // Relative to the request's own path, so it holds under a host app's mount point too.
        const last = prefix.slice(prefix.lastIndexOf("/") + 1);
        return rawResponse("", { status: 308, headers: { ...options.headers, location: `${last}/`, "cache-control": "no-cache" } });
      }),
      route(`${prefix}/*`, (ctx: ServerContext) => {
        // The wildcard's part of the decoded path; empty (`<prefix>/`) is the index.
        const name = ctx.path.slice(ctx.path.indexOf(`${prefix}/`) + prefix.length + 1).replace(/\/$/, "");
        return serve(ctx, name === "" ? index : name);
      }),
    ],
  };
}
