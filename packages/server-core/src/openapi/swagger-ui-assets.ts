import { readFile, readdir } from "node:fs/promises";
import { extname, join } from "node:path";
import { optionalDependencyDirectory } from "../core/lifecycle/optional-dependency.js";

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".map": "application/json; charset=utf-8",
};

let directory: string | undefined;
let allowed: Set<string> | undefined;
const cache = new Map<string, Uint8Array>();

/** What needs `swagger-ui-dist` (an optional peer), for `MissingDependencyError`. */
export const DOCS_FEATURE = "the API docs routes (enableSwagger)";

/**
 * The installed `swagger-ui-dist` folder (resolved from this package, so no CDN and no copy);
 * `MissingDependencyError` when it is not installed.
 */
export function swaggerUiDirectory(): string {
  directory ??= optionalDependencyDirectory("swagger-ui-dist", { feature: DOCS_FEATURE });
  return directory;
}

/**
 * One file of `swagger-ui-dist`, or undefined. Only names listed in the package folder
 * with a known extension are served: a name is never joined to a path unless it is on
 * that list, so `..`, encoded slashes or absolute paths cannot escape the folder.
 *
 * @example
 * await readSwaggerUiAsset("swagger-ui.css"); // {body, contentType: "text/css; charset=utf-8"}
 */
export async function readSwaggerUiAsset(name: string): Promise<{ body: Uint8Array; contentType: string } | undefined> {
  allowed ??= new Set((await readdir(swaggerUiDirectory())).filter((file) => CONTENT_TYPES[extname(file)] !== undefined));
  if (!allowed.has(name)) return undefined;
  const contentType = CONTENT_TYPES[extname(name)] as string;
  let body = cache.get(name);
  if (body === undefined) {
    body = new Uint8Array(await readFile(join(swaggerUiDirectory(), name)));
    cache.set(name, body);
  }
  return { body, contentType };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** The reference page; scripts come from `assetsPath`, the initializer too (no inline script, CSP-friendly). */
export function swaggerUiPage(options: { title: string; assetsPath: string }): string {
  const assets = escapeHtml(options.assetsPath);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(options.title)}</title>
  <link rel="stylesheet" href="${assets}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assets}/swagger-ui-bundle.js" charset="utf-8"></script>
  <script src="${assets}/swagger-ui-standalone-preset.js" charset="utf-8"></script>
  <script src="${assets}/conduit-initializer.js" charset="utf-8"></script>
</body>
</html>
`;
}

/** Starts Swagger UI on the document served next to the page. */
export function swaggerUiInitializer(specUrl: string): string {
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(specUrl)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
`;
}
