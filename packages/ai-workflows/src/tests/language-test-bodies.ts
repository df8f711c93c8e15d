/**
 * Writes one check as a test in pytest, unittest, rspec or `go test`. Kept apart from the
 * checks (what is tested) and from the file assembly (imports, class, package clause).
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { Check } from "./scanned-function-checks.js";

const snake = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toLowerCase()
    .replace(/^_|_$/g, "");
const pascal = (text: string) => text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _s, letter: string) => letter.toUpperCase());

const HOSTILE = ["<script>alert(1)</script>", "' OR '1'='1' --", "../../../etc/passwd", "{{7*7}}"];

/** A pytest function, or a unittest method when `unittest`. */
export function pythonTest(check: Check, unittest: boolean): string {
  const prefix = unittest ? "    " : "";
  const self = unittest ? "self" : "";
  const lines: string[] = [`${prefix}def test_${snake(check.name)}(${self}):`];
  const body = (text: string) => lines.push(`${prefix}    ${text}`);
  if (check.expect === "raises") {
    body(unittest ? "with self.assertRaises(Exception):" : "with pytest.raises(Exception):");
    body(`    ${check.call}`);
  } else if (check.expect === "fast") {
    body("started = time.perf_counter()");
    body("for _ in range(10_000):");
    body(`    ${check.call}`);
    body(unittest ? "self.assertLess(time.perf_counter() - started, 1.0)" : "assert time.perf_counter() - started < 1.0");
  } else if (check.expect === "hostile") {
    body(`for payload in ${JSON.stringify(HOSTILE)}:`);
    body("    try:");
    body(`        ${check.call}`);
    body("    except Exception:");
    body("        pass");
  } else {
    body(`result = ${check.call}`);
    const type = { int: "int", float: "(int, float)", str: "str", bool: "bool", list: "list", dict: "dict" }[
      (check.resultType ?? "").replace(/\[.*$/, "")
    ];
    if (type) body(unittest ? `self.assertIsInstance(result, ${type})` : `assert isinstance(result, ${type})`);
    // No declared type: the same input must give the same result (a determinism check).
    else body(unittest ? `self.assertEqual(result, ${check.call})` : `assert result == ${check.call}`);
  }
  return lines.join("\n");
}

/** An rspec example. */
export function rubyTest(check: Check): string {
  const body =
    check.expect === "raises"
      ? [`expect { ${check.call} }.to raise_error(StandardError)`]
      : check.expect === "fast"
        ? [
            "started = Process.clock_gettime(Process::CLOCK_MONOTONIC)",
            `10_000.times { ${check.call} }`,
            "expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 1.0",
          ]
        : check.expect === "hostile"
          ? [
              `${JSON.stringify(HOSTILE).replace(/^\[/, "[").replace(/\]$/, "]")}.each do |payload|`,
              "  begin",
              `    ${check.call}`,
              "  rescue StandardError",
              "    nil",
              "  end",
              "end",
            ]
          : [`expect { ${check.call} }.not_to raise_error`];
  return [`it ${JSON.stringify(check.name)} do`, ...body.map((line) => `  ${line}`), "end"].join("\n");
}

/** A `go test` function; `fact` tells whether the function returns an error to check. */
export function goTest(check: Check, fact: FunctionFact): string {
  const returnsError = /\berror\)?\s*$/.test(fact.returnType ?? "");
  const results = (fact.returnType ?? "")
    .replace(/^\(|\)$/g, "")
    .split(",")
    .filter((part) => part.trim() !== "").length;
  const blanks = Array.from({ length: results }, () => "_");
  const lines = [`func Test${pascal(check.name)}(t *testing.T) {`];
  if (check.expect === "raises" && returnsError) {
    blanks[blanks.length - 1] = "err";
    lines.push(`\t${blanks.join(", ")} := ${check.call}`, "\tif err == nil {", '\t\tt.Fatal("expected an error")', "\t}");
  } else if (check.expect === "fast") {
    lines.push(
      "\tstarted := time.Now()",
      "\tfor run := 0; run < 10000; run++ {",
      `\t\t${results > 0 ? `${blanks.join(", ")} = ` : ""}${check.call}`,
      "\t}",
      "\tif time.Since(started) > time.Second {",
      '\t\tt.Fatalf("too slow: %v", time.Since(started))',
      "\t}",
    );
  } else if (check.expect === "hostile") {
    lines.push(
      `\tfor _, payload := range []string{${HOSTILE.map((item) => JSON.stringify(item)).join(", ")}} {`,
      `\t\t${results > 0 ? `${blanks.join(", ")} = ` : ""}${check.call}`,
      "\t}",
    );
  } else if (returnsError && check.expect === "returns") {
    blanks[blanks.length - 1] = "err";
    lines.push(`\t${blanks.join(", ")} := ${check.call}`, "\tif err != nil {", '\t\tt.Fatalf("unexpected error: %v", err)', "\t}");
  } else {
    lines.push(`\t${results > 0 ? `${blanks.join(", ")} = ` : ""}${check.call}`);
  }
  lines.push("}");
  return lines
    .join("\n")
    .replace(/^\t_ = /m, "\t_ = ")
    .replace(/\t(_(, _)*) := /, "\t$1 = ");
}
