// node scripts/mermaid_check.mjs FILE...: parse every Mermaid diagram with Mermaid itself.
//
// A `.md` file's diagrams are its ```mermaid blocks; any other file is one diagram. Mermaid's
// parser needs a DOM (DOMPurify hooks into `window` when the module loads), which jsdom gives
// it; package-lock.json pins both. Prints one `file:block: message` line per diagram Mermaid
// refuses and exits 1 when there is any, 2 on a usage error.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");

function diagrams(path) {
  const text = readFileSync(path, "utf8");
  if (!path.endsWith(".md")) return [text];
  return [...text.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((block) => block[1]);
}

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error("usage: node scripts/mermaid_check.mjs FILE...");
  process.exit(2);
}
let problems = 0;
for (const path of paths) {
  const found = diagrams(path);
  for (const [index, diagram] of found.entries()) {
    try {
      await mermaid.parse(diagram);
    } catch (error) {
      console.log(`${path}:${index + 1}: ${String(error.message ?? error).split("\n").join(" ")}`);
      problems += 1;
    }
  }
}
process.exitCode = problems === 0 ? 0 : 1;
