import { existsSync, readdirSync, readFileSync } from 'fs';
import { join, relative } from 'path';
import { filesUnder, isBuilt } from './files.spec-helper';

const ROOT = join(__dirname, '..');

/** Every Nx project under libs/ (a folder with a project.json), as its path from the root. */
function libraries(dir = join(ROOT, 'libs')): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const folder = join(dir, entry.name);
      return existsSync(join(folder, 'project.json')) ? [relative(ROOT, folder)] : libraries(folder);
    });
}

/** The layer a library's folder says it is in, as its Nx `type:` tag (which the lint's module boundaries enforce). */
function layerOf(path: string): string {
  if (path.startsWith('libs/domain/')) return 'type:domain';
  if (path.startsWith('libs/platform/')) return 'type:platform';
  const apart: Record<string, string> = {
    'libs/contracts': 'type:contracts',
    'libs/sdk': 'type:sdk',
    'libs/testing': 'type:testing',
    'libs/load': 'type:testing',
  };
  const type = apart[path];
  if (!type) throw new Error(`${path} is in no layer: put it under libs/domain or libs/platform, or name it here`);
  return type;
}

describe('layers - the folders of libs/ are the layers, and the Nx tags follow them', () => {
  const projects = libraries();

  it('finds the pure domain libraries, the platform libraries and the ones apart', () => {
    expect(projects.filter((path) => path.startsWith('libs/domain/')).length).toBeGreaterThanOrEqual(9);
    expect(projects.filter((path) => path.startsWith('libs/platform/')).length).toBeGreaterThanOrEqual(9);
    expect(projects).toEqual(expect.arrayContaining(['libs/contracts', 'libs/sdk', 'libs/testing']));
  });

  it.each(libraries())('%s carries the type tag of its folder, and is named after it', (path) => {
    const project = JSON.parse(readFileSync(join(ROOT, path, 'project.json'), 'utf8')) as { name: string; sourceRoot: string; tags: string[] };
    expect(project.tags.filter((tag) => tag.startsWith('type:'))).toEqual([layerOf(path)]);
    expect(project.sourceRoot).toBe(`${path}/src`);
    expect(project.name).toBe(path.split('/').pop());
  });

  it('maps every library alias to its folder', () => {
    const { paths } = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } })
      .compilerOptions;
    expect(Object.keys(paths).sort()).toEqual(projects.map((path) => `@ramp/${path.split('/').pop()}`).sort());
    for (const path of projects) expect(paths[`@ramp/${path.split('/').pop()}`]).toEqual([`${path}/src/index.ts`]);
  });
});

describe('apps - what the build compiles is the services, with no test code', () => {
  // The build (tsconfig.build.json) leaves out the specs and *.spec-helper.ts (isBuilt); test helpers live in libs/testing.
  const TEST_ONLY = /from '(@ramp\/testing|@ramp\/load|fast-check|@jest\/[^']*|jest)'/;
  const apps = readdirSync(join(ROOT, 'apps')).filter((app) => existsSync(join(ROOT, 'apps', app, 'src')));

  it.each(apps)('apps/%s imports no test helper outside its specs', (app) => {
    const importing = filesUnder(join(ROOT, 'apps', app, 'src'), isBuilt)
      .filter((file) => TEST_ONLY.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(importing).toEqual([]);
  });
});
