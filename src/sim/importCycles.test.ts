/**
 * No import cycle in src/sim: a module graph with a cycle has no order in which its modules can
 * be read on their own, and the order they initialise in depends on which one is imported first.
 * Reads every module with the TypeScript compiler API and follows its relative imports and
 * re-exports. A whole-declaration `import type` / `export type` is erased by the compiler and is
 * not an edge; `import { type X }` is kept (verbatimModuleSyntax) and is one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const SIM = resolve(__dirname);

function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return modules(path);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  // A JSON file (a fixture) imports nothing, so it cannot close a cycle.
  if (!spec.startsWith('.') || spec.endsWith('.json')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  throw new Error(`${relative(SIM, from)}: cannot resolve ${spec}`);
}

/** The runtime imports of a module: relative specifiers, minus type-only declarations. */
export function runtimeImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node)) {
      if (node.importClause?.isTypeOnly) continue;
      out.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      if (node.isTypeOnly) continue;
      out.push((node.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out.flatMap((spec) => resolveImport(file, spec) ?? []);
}

/** Every cycle reachable in the graph, each as a list of module paths relative to src/sim. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'closed'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const s = state.get(next);
      if (s === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].map((p) => relative(SIM, p)));
      else if (s === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'closed');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('src/sim module graph', () => {
  it('has no import cycle', () => {
    const graph = new Map(modules(SIM).map((file) => [file, runtimeImports(file, readFileSync(file, 'utf8'))]));
    expect(graph.size).toBeGreaterThan(30);
    expect(findCycles(graph)).toEqual([]);
  });

  it('the cycle finder finds a cycle when there is one (so the test above can fail)', () => {
    const a = join(SIM, 'a.ts');
    const b = join(SIM, 'b.ts');
    const c = join(SIM, 'c.ts');
    expect(findCycles(new Map([[a, [b]], [b, [c]], [c, [a]]]))).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(findCycles(new Map([[a, [b]], [b, [c]], [c, []]]))).toEqual([]);
  });

  it('a whole `import type` is not an edge; `import { type X }` is', () => {
    const file = join(SIM, 'engine', 'world.ts');
    expect(runtimeImports(file, "import type { Rng } from './rng';")).toEqual([]);
    expect(runtimeImports(file, "import { type Rng } from './rng';")).toEqual([join(SIM, 'engine', 'rng.ts')]);
    expect(runtimeImports(file, "export { Rng } from './rng';")).toEqual([join(SIM, 'engine', 'rng.ts')]);
  });
});
