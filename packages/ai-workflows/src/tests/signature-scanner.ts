import type { ParamCondition } from "../code/conditions.js";
import type { FunctionFact, ParameterFact } from "../code/function-facts.js";

/**
 * Python, Ruby and Go are read by a line scanner of their declaration syntax (not a full
 * parser): signatures, parameters with their type hints and defaults, classes, docstrings,
 * raise/error branches and simple parameter comparisons.
 */
export type ScannedLanguage = "python" | "ruby" | "go";

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  let quote: string | null = null;
  for (const character of text) {
    if (quote) {
      if (character === quote) quote = null;
    } else if (character === '"' || character === "'") quote = character;
    else if ("([{".includes(character)) depth++;
    else if (")]}".includes(character)) depth--;
    if (character === "," && depth === 0 && !quote) {
      parts.push(current.trim());
      current = "";
    } else current += character;
  }
  if (current.trim() !== "") parts.push(current.trim());
  return parts;
}

function pythonParam(part: string): ParameterFact | undefined {
  const match = /^(\*{0,2})(\w+)\s*(?::\s*([^=]+?))?\s*(?:=\s*(.+))?$/.exec(part);
  if (!match || match[2] === "self" || match[2] === "cls") return undefined;
  return {
    name: match[2] as string,
    type: match[3]?.trim() ?? null,
    optional: match[4] !== undefined || match[1] !== "",
    defaultValue: match[4]?.trim() ?? null,
    rest: match[1] !== "",
  };
}

function rubyParam(part: string): ParameterFact | undefined {
  const match = /^([*&]{0,2})(\w+)(:)?\s*(?:=?\s*(.+))?$/.exec(part);
  if (!match) return undefined;
  return {
    name: match[2] as string,
    type: null,
    optional: match[4] !== undefined || match[1] !== "",
    defaultValue: match[4]?.trim() ?? null,
    rest: match[1] !== "",
  };
}

function goParams(text: string): ParameterFact[] {
  const parts = splitTopLevel(text);
  const params: ParameterFact[] = [];
  let pendingNames: string[] = [];
  for (const part of parts) {
    const match = /^(\w+)\s+(.+)$/.exec(part);
    if (!match) {
      pendingNames.push(part);
      continue;
    }
    for (const name of [...pendingNames, match[1] as string])
      params.push({
        name,
        type: (match[2] as string).trim(),
        optional: false,
        defaultValue: null,
        rest: (match[2] as string).startsWith("..."),
      });
    pendingNames = [];
  }
  return params;
}

const COMPARE = /\bif\s+(?:not\s+|!)?\(?\s*(\w+)\s*(<=|>=|<|>|==|!=)\s*(-?\d+(?:\.\d+)?|"[^"]*"|'[^']*')/;

function bodyFacts(
  lines: string[],
  params: ParameterFact[],
  language: ScannedLanguage,
): { throws: boolean; branches: number; conditions: ParamCondition[]; returnsValue: boolean } {
  const names = new Set(params.map((param) => param.name));
  const raise =
    language === "python" ? /^\s*raise\b/ : language === "ruby" ? /^\s*raise\b/ : /return\s+.*(errors\.New|fmt\.Errorf|\berr\b)/;
  let branches = 0;
  let throws = false;
  let returnsValue = language === "ruby";
  const conditions: ParamCondition[] = [];
  for (const [index, line] of lines.entries()) {
    if (/^\s*(if|elif|elsif|unless|case|when|switch|for|while)\b|\?.+:/.test(line)) branches++;
    if (raise.test(line)) throws = true;
    if (/^\s*return\s+\S/.test(line)) returnsValue = true;
    const match = COMPARE.exec(line);
    if (match && names.has(match[1] as string)) {
      const next = lines.slice(index, index + 3).join("\n");
      const raw = match[3] as string;
      const value = /^["']/.test(raw) ? raw.slice(1, -1) : Number(raw);
      conditions.push({
        param: match[1] as string,
        kind: "compare",
        operator: match[2] as string,
        value,
        throws: raise.test(next.split("\n").slice(1).join("\n")) || raise.test(line),
        line: index + 1,
      });
    }
  }
  return { throws, branches, conditions, returnsValue };
}

const DECLARATIONS: Record<ScannedLanguage, RegExp> = {
  python: /^(\s*)(async\s+)?def\s+(\w+)\s*\(/,
  ruby: /^(\s*)def\s+(self\.)?(\w+[?!]?)/,
  go: /^()func\s+(?:\(\s*\w*\s*\*?(\w+)\s*\)\s*)?(\w+)\s*\(/,
};

/** The functions, methods and classes of Python, Ruby or Go source. */
export function scanFunctions(source: string, language: ScannedLanguage): FunctionFact[] {
  const lines = source.split("\n");
  const facts: FunctionFact[] = [];
  let currentClass: { name: string; indent: number } | undefined;
  for (let index = 0; index < lines.length && facts.length < 500; index++) {
    const line = lines[index] as string;
    const classMatch = language === "go" ? /^type\s+(\w+)\s+struct\b/.exec(line) : /^(\s*)class\s+(\w+)/.exec(line);
    if (classMatch) {
      const name = (language === "go" ? classMatch[1] : classMatch[2]) as string;
      currentClass = language === "go" ? undefined : { name, indent: (classMatch[1] ?? "").length };
      if (language !== "go") facts.push(emptyFact(name, "class", index + 1, null));
      continue;
    }
    const match = DECLARATIONS[language].exec(line);
    if (!match) continue;
    const indent = (match[1] ?? "").length;
    if (currentClass && indent <= currentClass.indent) currentClass = undefined;
    // The parameter list may span lines: read to the matching parenthesis.
    let signature = line.slice(line.indexOf("(", match[0].length - 1) + 1);
    let end = index;
    while (!/\)/.test(signature) && end + 1 < lines.length && end - index < 20) signature += ` ${lines[++end]}`;
    const paramsText =
      language === "ruby" && !line.includes("(")
        ? ""
        : signature.slice(0, signature.indexOf(")") >= 0 ? signature.indexOf(")") : undefined);
    const rest = signature.slice(signature.indexOf(")") + 1);
    const params =
      language === "go"
        ? goParams(paramsText)
        : splitTopLevel(paramsText).flatMap((part) => (language === "python" ? pythonParam(part) : rubyParam(part)) ?? []);
    const returnType =
      language === "python"
        ? (/->\s*([^:]+):/.exec(rest)?.[1]?.trim() ?? null)
        : language === "go"
          ? rest.replace(/\{.*$/, "").trim() || null
          : null;
    const bodyEnd = findBodyEnd(lines, end + 1, indent, language);
    const body = lines.slice(end + 1, bodyEnd);
    const receiver = language === "go" ? (match[2] ?? null) : null;
    const name = match[3] as string;
    const docstring = language === "python" ? (/^\s*(?:"""|''')([\s\S]*?)(?:"""|''')/.exec(body.join("\n"))?.[1]?.trim() ?? null) : null;
    const isMethod = Boolean(currentClass) || receiver !== null;
    const fact = emptyFact(name, isMethod ? "method" : "function", index + 1, docstring);
    Object.assign(fact, bodyFacts(body, params, language), {
      params,
      returnType,
      async: Boolean(match[2]) && language === "python",
      className: receiver ?? currentClass?.name ?? null,
      isStatic: language === "ruby" && Boolean(match[2]),
      endLine: bodyEnd,
      exported: language === "go" ? /^[A-Z]/.test(name) : !name.startsWith("_"),
    });
    facts.push(fact);
  }
  return facts;
}

function findBodyEnd(lines: string[], start: number, indent: number, language: ScannedLanguage): number {
  for (let index = start; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() === "") continue;
    const lineIndent = line.length - line.trimStart().length;
    if (language === "python" && lineIndent <= indent) return index;
    if (language === "ruby" && lineIndent === indent && /^\s*end\b/.test(line)) return index + 1;
    if (language === "go" && /^\}/.test(line)) return index + 1;
  }
  return lines.length;
}

function emptyFact(name: string, kind: FunctionFact["kind"], line: number, documentation: string | null): FunctionFact {
  return {
    name,
    kind,
    className: null,
    params: [],
    returnType: null,
    async: false,
    generator: false,
    exported: true,
    exportName: name,
    line,
    endLine: line,
    branches: 0,
    throws: false,
    documentation,
    jsdoc: null,
    conditions: [],
    calls: [],
    returnsValue: false,
    isStatic: false,
    node: { type: "Noop" } as FunctionFact["node"],
  };
}
