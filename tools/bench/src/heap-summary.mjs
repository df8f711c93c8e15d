// node heap-summary.mjs a.heapsnapshot [b.heapsnapshot]: self size by constructor (b - a when two).
import { readFileSync } from "node:fs";
function summarize(file) {
  const snap = JSON.parse(readFileSync(file, "utf8"));
  const meta = snap.snapshot.meta;
  const fields = meta.node_fields,
    F = fields.length;
  const types = meta.node_types[0];
  const iType = fields.indexOf("type"),
    iName = fields.indexOf("name"),
    iSize = fields.indexOf("self_size");
  const nodes = snap.nodes,
    strings = snap.strings;
  const map = new Map();
  for (let i = 0; i < nodes.length; i += F) {
    const type = types[nodes[i + iType]];
    let name = strings[nodes[i + iName]];
    if (type === "string" || type === "concatenated string" || type === "sliced string") name = "(string)";
    else if (type === "code") name = "(code)";
    else if (type === "array") name = `(array) ${name}`;
    else if (type === "hidden") name = `(hidden) ${name}`;
    else if (type === "closure") name = `(closure) ${name}`;
    else name = `${type}:${name}`.slice(0, 80);
    const e = map.get(name) ?? { size: 0, count: 0 };
    e.size += nodes[i + iSize];
    e.count++;
    map.set(name, e);
  }
  return map;
}
const [a, b] = process.argv.slice(2);
const A = summarize(a);
const rows = [];
if (b) {
  const B = summarize(b);
  for (const [k, v] of B) {
    const o = A.get(k) ?? { size: 0, count: 0 };
    rows.push([k, v.size - o.size, v.count - o.count]);
  }
} else for (const [k, v] of A) rows.push([k, v.size, v.count]);
rows.sort((x, y) => y[1] - x[1]);
const total = rows.reduce((s, r) => s + r[1], 0);
console.log("total", (total / 1024 / 1024).toFixed(1), "MB");
for (const [k, s, c] of rows.slice(0, Number(process.env.TOP ?? 60)))
  console.log(String((s / 1024).toFixed(0)).padStart(9), "KB", String(c).padStart(8), k);
