// The TypeScript compiler's own "find references", the references benchmark's oracle for
// TypeScript (bench/reference_truth.py runs it).
//
// Usage: node bench/ts_references.js TYPESCRIPT_DIR ROOT < seeds.json > uses.json
//   TYPESCRIPT_DIR: the installed `typescript` package (npm install typescript@5)
//   ROOT: the repository; every .ts/.tsx file below it is one program
//   seeds.json: [{"path", "line", "column"}] (repository-relative, 1-based)
//   uses.json: one entry per seed, null when the position names no symbol, else
//              {"uses": [[path, line, column], ...], "aside": {"declaration": [...],
//              "other_class": [...]}}: every reference the LanguageService lists but the
//              seed's own definition, and those of them that are no use by the
//              benchmark's rule (below).
//
// findReferences answers for a member's whole "rename group": the member, the base-class
// and interface members it overrides or implements, and every other member related to
// those (overrides in subclasses, other classes implementing the same interface). Two
// kinds of its entries are set aside, each decided by the compiler itself:
//   declaration: the name of a declaration (an override, an interface's member, an
//                object literal's key): a definition, which the references of issue 33
//                leave out ("the definitions' own names ... struct keys");
//   other_class: a use the type checker resolves to a member of a class or interface
//                that is neither the seed's class, nor one of its bases or interfaces,
//                nor one of its subclasses (a sibling implementing the same interface:
//                `subscriber.complete()` on a `Subscriber` for `ConsumerObserver.complete`):
//                such a call cannot run the seed.
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

const checker = () => service.getProgram().getTypeChecker();

// The innermost node at `position` (an identifier, for a reference's or a name's span;
// in a comment, the node the comment is written in: a node's leading comments are not
// its own).
function nodeAt(sf, position) {
  let found = sf;
  const visit = (node) => {
    if (node.getStart(sf) <= position && position < node.end) {
      found = node;
      ts.forEachChild(node, visit);
    }
  };
  ts.forEachChild(sf, visit);
  return found;
}

const MEMBERS = new Set([ts.SyntaxKind.MethodDeclaration, ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.PropertyDeclaration, ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.PropertyAssignment, ts.SyntaxKind.ShorthandPropertyAssignment,
  ts.SyntaxKind.GetAccessor, ts.SyntaxKind.SetAccessor]);

// Whether an identifier is the name a member's declaration declares (an override, an
// interface's member, an object literal's key; an import's or export's name is a use,
// and so is a shorthand key's value when it is the seed: `{ make_ }` uses `make_`).
function isMemberName(node, seedSymbol) {
  const parent = node.parent;
  if (!parent || !MEMBERS.has(parent.kind) || parent.name !== node) return false;
  return !(ts.isShorthandPropertyAssignment(parent)
    && resolved(checker().getShorthandAssignmentValueSymbol(parent)) === seedSymbol);
}

const CONTAINERS = new Set([ts.SyntaxKind.ClassDeclaration, ts.SyntaxKind.ClassExpression,
  ts.SyntaxKind.InterfaceDeclaration, ts.SyntaxKind.ObjectLiteralExpression,
  ts.SyntaxKind.TypeLiteral]);

// The class, interface or object literal a member's declaration is written in.
function containerOf(declaration) {
  let node = declaration.parent;
  while (node && !CONTAINERS.has(node.kind)) node = node.parent;
  return node;
}

function resolved(symbol) {
  return symbol && (symbol.flags & ts.SymbolFlags.Alias) ? checker().getAliasedSymbol(symbol) : symbol;
}

// The declarations (classes, interfaces) a container is, extends or implements, through
// every level; an object literal is its contextual type (`const p: Provider = {...}`).
function lineage(container) {
  const seen = new Set();
  const pending = [container];
  if (ts.isObjectLiteralExpression(container)) {
    const type = checker().getContextualType(container);
    for (const part of type ? (type.isUnion() ? type.types : [type]) : []) {
      for (const d of (part.symbol && part.symbol.declarations) || []) pending.push(d);
    }
  }
  while (pending.length) {
    const node = pending.pop();
    if (seen.has(node)) continue;
    seen.add(node);
    for (const clause of node.heritageClauses || []) {
      for (const type of clause.types) {
        const symbol = resolved(checker().getSymbolAtLocation(type.expression));
        for (const d of (symbol && symbol.declarations) || []) {
          if (CONTAINERS.has(d.kind)) pending.push(d);
        }
      }
    }
  }
  return seen;
}

// Whether a member symbol (one of a union's parts is enough) belongs to the seed's class,
// one of its bases or interfaces, or one of its subclasses; true when it cannot be told.
function related(symbol, seedLineage, seedContainer) {
  if (!symbol || !seedContainer) return true;
  for (const root of checker().getRootSymbols(symbol)) {
    for (const declaration of root.declarations || []) {
      const container = containerOf(declaration);
      if (!container || seedLineage.has(container) || lineage(container).has(seedContainer)) {
        return true;
      }
    }
  }
  return false;
}

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
  const seedNode = nodeAt(sf, position);
  const seedDeclaration = seedNode.parent;
  const seedContainer = seedDeclaration && containerOf(seedDeclaration);
  const seedLineage = seedContainer ? lineage(seedContainer) : new Set();
  const seedSymbol = checker().getSymbolAtLocation(seedNode);
  const answer = { uses: [], aside: { declaration: [], other_class: [] } };
  for (const symbol of found) {
    for (const ref of symbol.references) {
      if (ref.isDefinition) continue;
      const rel = path.relative(root, ref.fileName);
      if (rel.startsWith("..") || path.isAbsolute(rel)) continue;
      const site = [rel.split(path.sep).join("/"), ...lineColumn(ref.fileName, ref.textSpan.start)];
      answer.uses.push(site);
      const node = nodeAt(service.getProgram().getSourceFile(ref.fileName), ref.textSpan.start);
      if (isMemberName(node, seedSymbol)) {
        answer.aside.declaration.push(site);
      } else if (!related(checker().getSymbolAtLocation(node), seedLineage, seedContainer)) {
        answer.aside.other_class.push(site);
      }
    }
  }
  return answer;
});
process.stdout.write(JSON.stringify(answers));
