// A module.register() hook that appends every URL the ESM loader resolves to a file
// (`data.file`), so a test can see which packages an `import` pulled in. Packages named in
// `data.hide` resolve as Node resolves a package that is not installed.
import { appendFileSync } from "node:fs";

let file;
let hidden = [];

export function initialize(data) {
  file = data.file;
  hidden = data.hide ?? [];
}

export async function resolve(specifier, context, nextResolve) {
  if (hidden.some((name) => specifier === name || specifier.startsWith(`${name}/`))) {
    const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  const result = await nextResolve(specifier, context);
  appendFileSync(file, `${result.url}\n`);
  return result;
}
