// A module.register() hook that appends every URL the ESM loader resolves to a file
// (`data.file`), so a test can see which packages an `import` pulled in.
import { appendFileSync } from "node:fs";

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(file, `${result.url}\n`);
  return result;
}
