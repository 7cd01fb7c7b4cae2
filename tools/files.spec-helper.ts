import { readdirSync } from 'fs';
import { join } from 'path';

/** Every file under `dir` whose name matches `keep` (node_modules left out). */
export function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

/** What the build compiles: TypeScript that is not a spec, an integration or end-to-end spec, or a spec helper. */
export const isBuilt = (name: string): boolean => name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec|spec-helper)\.ts$/.test(name);
