// The TypeScript compiler's own "find references", the references benchmark's oracle for
// TypeScript (bench/reference_truth.py runs it).
//
// Usage: node bench/ts_references.js TYPESCRIPT_DIR ROOT < seeds.json > uses.json
//   TYPESCRIPT_DIR: the installed `typescript` package (npm install typescript@5)
//   ROOT: the repository; every .ts/.tsx file below it is one program
//   seeds.json: [{"path", "line", "column"}] (repository-relative, 1-based)
//   uses.json: one entry per seed: [[path, line, column], ...] without the definitions,
//              or null when the position names no symbol.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const root = path.resolve(process.argv[3]);
const seeds = JSON.parse(fs.readFileSync(0, "utf8"));

function sourceFiles(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (/\.(ts|tsx)$/.test(entry.name)) out.push(full);
  }
  return out;
}

const files = sourceFiles(root, []);
const texts = new Map();
const read = (f) => {
  if (!texts.has(f)) texts.set(f, fs.existsSync(f) ? fs.readFileSync(f, "utf8") : undefined);
  return texts.get(f);
};
const options = {
  target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve,
  allowJs: false, strict: false, skipLibCheck: true, noEmit: true,
};
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => {
    const text = read(f);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: (f) => fs.existsSync(f),
  readFile: (f) => read(f),
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());

function lineColumn(file, position) {
  const sf = service.getProgram().getSourceFile(file);
  const lc = sf.getLineAndCharacterOfPosition(position);
  return [lc.line + 1, lc.character + 1];
}

const answers = seeds.map((seed) => {
  const file = path.join(root, seed.path);
  const sf = service.getProgram().getSourceFile(file);
  if (!sf) return null;
  const position = sf.getPositionOfLineAndCharacter(seed.line - 1, seed.column - 1);
  const found = service.findReferences(file, position);
  if (!found) return null;
  const uses = [];
  for (const symbol of found) {
    for (const ref of symbol.references) {
      if (ref.isDefinition) continue;
      const rel = path.relative(root, ref.fileName);
      if (rel.startsWith("..") || path.isAbsolute(rel)) continue;
      uses.push([rel.split(path.sep).join("/"), ...lineColumn(ref.fileName, ref.textSpan.start)]);
    }
  }
  return uses;
});
process.stdout.write(JSON.stringify(answers));
