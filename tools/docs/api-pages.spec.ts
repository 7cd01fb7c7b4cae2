import { existsSync, readdirSync, readFileSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';
import { SETTINGS } from '@ramp/config';
import { ERROR_CODES, ERROR_REASONS, FAILURE_REASONS, integrationEvents } from '@ramp/contracts';

const ROOT = resolve(__dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const API_PAGES = readdirSync(join(ROOT, 'docs/api'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/api/${name}`);
/** The pages written by hand that a reader of the contract follows: their links and names must hold. */
const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'docs/versioning.md',
  'docs/configuration.md',
  'docs/benchmarks.md',
  'docs/capacity.md',
  'libs/sdk/README.md',
  'deploy/README.md',
  'examples/README.md',
  ...API_PAGES,
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const base = anchorOf(heading[1]!);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Markdown links `[text](target)` outside code: targets that are not web addresses. */
function localLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('reference pages - the integrator reference holds to the code and to itself', () => {
  it('documents every operation of docs/openapi.json under a heading of docs/api/endpoints.md', () => {
    const openapi = JSON.parse(read('docs/openapi.json')) as { paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>> };
    const headings = new Set(
      read('docs/api/endpoints.md')
        .split('\n')
        .filter((line) => line.startsWith('### '))
        .map((line) => line.slice(4).trim()),
    );
    const operations = Object.entries(openapi.paths).flatMap(([path, item]) =>
      Object.entries(item)
        // Operations (probes) and Partners (the bank partners' event route) are not integrators' operations: docs/partners.md.
        .filter(([, operation]) => operation.operationId !== undefined && !operation.tags?.some((tag) => tag === 'Operations' || tag === 'Partners'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThan(25);
    expect(operations.filter((operation) => !headings.has(operation))).toEqual([]);
  });

  it('names only error codes, reasons, failure reasons, settings and streams that exist', () => {
    const settings = Object.values(SETTINGS).map((setting) => setting.env);
    const known = new Set<string>([
      ...ERROR_CODES,
      ...Object.keys(ERROR_REASONS),
      ...Object.keys(FAILURE_REASONS),
      ...settings,
      integrationEvents().stream,
      'SANDBOX_BANK_ACCOUNTS',
    ]);
    for (const page of [...API_PAGES, 'docs/versioning.md']) {
      const names = [...read(page).matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((match) => match[1]!);
      expect({ page, unknown: [...new Set(names)].filter((name) => !known.has(name)) }).toEqual({ page, unknown: [] });
    }
  });

  it('links only to files of the repository that exist, and to headings they have', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const link of localLinks(read(page))) {
        const [path = '', anchor] = link.split('#');
        const target = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), path);
        if (relative(ROOT, target).startsWith('..') || !existsSync(target)) broken.push(`${page}: ${link} (no such file in the repository)`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
          broken.push(`${page}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
