import { existsSync, readFileSync } from 'fs';
import { dirname, join, resolve } from 'path';

/** The workspace root, found from this file whether it runs from source (tests) or from dist/ (benchmarks). */
function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'ramp-platform') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('workspace root not found');
    dir = parent;
  }
}

export const WORKSPACE_ROOT = findRoot(__dirname);
export const REGISTER_PATHS = resolve(WORKSPACE_ROOT, 'tools/register-paths.js');

export function compiledMain(app: string): string {
  return resolve(WORKSPACE_ROOT, 'dist/apps', app, 'src/main.js');
}
