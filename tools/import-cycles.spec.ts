import { readdirSync, readFileSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

const ROOT = resolve(__dirname, '..');

/** Every TypeScript source under these folders (no build output, no dependencies). */
function sources(...folders: string[]): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) found.push(path);
    }
  };
  for (const folder of folders) walk(join(ROOT, folder));
  return found;
}

/** Each file's relative imports and re-exports (type-only ones included: a cycle of types is a tangle all the same). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\s[^'";]*?from\s+'(\.[^']+)'/gms)]
      .map(([, specifier]) => resolve(dirname(file), specifier!))
      .flatMap((target) => [`${target}.ts`, join(target, 'index.ts')].filter((candidate) => known.has(candidate)).slice(0, 1));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan): each is an import cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(relative(ROOT, member));
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('import cycles - the layout stays a tree of files', () => {
  it('finds a cycle where there is one', () => {
    const [a, b, c] = ['/x/a.ts', '/x/b.ts', '/x/c.ts'];
    expect(
      cycles(
        new Map([
          [a!, [b!]],
          [b!, [c!]],
          [c!, [a!]],
        ]),
      ),
    ).toHaveLength(1);
    expect(
      cycles(
        new Map([
          [a!, [b!]],
          [b!, [c!]],
          [c!, []],
        ]),
      ),
    ).toEqual([]);
  });

  it('no file of apps, libs or tools imports, through others, a file that imports it', () => {
    const graph = importGraph(sources('apps', 'libs', 'tools'));
    expect(graph.size).toBeGreaterThan(300);
    expect(cycles(graph)).toEqual([]);
  });
});
