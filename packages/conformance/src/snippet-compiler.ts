import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";

/** A TypeScript code block of a README, with where it came from. */
export interface Snippet {
  /** `packages/auth/README.md:42` */
  origin: string;
  code: string;
}

const FENCE = /^```(ts|typescript)\s*$/;

/** The ```ts blocks of a markdown file. */
export function snippetsOf(markdownPath: string, displayPath: string): Snippet[] {
  const lines = readFileSync(markdownPath, "utf8").split("\n");
  const snippets: Snippet[] = [];
  let start = -1;
  for (const [index, line] of lines.entries()) {
    if (start === -1 && FENCE.test(line)) start = index + 1;
    else if (start !== -1 && line.startsWith("```")) {
      snippets.push({ origin: `${displayPath}:${start}`, code: lines.slice(start, index).join("\n") });
      start = -1;
    }
  }
  return snippets;
}

const parsed = new Map<string, ts.SourceFile | undefined>();

/**
 * Type-checks `files` (path → source) as modules of one strict program, resolving packages the
 * way the workspace does (sources through the `@conduit-ai/source` condition). The files are
 * virtual; their directory decides where `node_modules` are looked up. Returns the diagnostics.
 */
export function typeCheck(files: Map<string, string>): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
    customConditions: ["@conduit-ai/source"],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => files.get(path) ?? readFile(path);
  host.fileExists = (path) => files.has(path) || fileExists(path);
  host.getSourceFile = (path, language, onError, create) => {
    const text = files.get(path);
    if (text !== undefined) return ts.createSourceFile(path, text, language, true);
    // The packages' files, parsed once for every program of a run (as the language service's document registry shares them).
    const key = `${typeof language === "object" ? `${language.languageVersion}:${language.impliedNodeFormat}` : language}:${path}`;
    if (!parsed.has(key)) parsed.set(key, getSourceFile(path, language, onError, create));
    return parsed.get(key);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  // The snippets' own diagnostics (and the program's global ones), not those of every workspace source
  // they reach: the packages' sources are type-checked by their own projects, and checking them all here
  // again made this the costliest file of the suite (about 30 s of CPU per program).
  const snippetFiles = program.getSourceFiles().filter((sourceFile) => files.has(sourceFile.fileName));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...snippetFiles.flatMap((sourceFile) => [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ]),
  ];
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName}:${line + 1}: ${message}`;
  });
}

/** A virtual module path next to this package's sources (so its dependencies resolve). */
export function virtualPath(name: string): string {
  return join(dirname(new URL(import.meta.url).pathname), "__snippets__", `${name.replace(/[^a-z0-9]+/gi, "-")}.ts`);
}
