import { builtinModules } from 'node:module';
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const DEP_CONSTRAINTS = [
  // Contracts are plain types and typed errors: they depend on nothing of ours.
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
  // Domain libraries (libs/domain) hold business rules: no NestJS, MikroORM, NATS or Redis, only other domain code.
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:contracts'] },
  // Platform libraries (libs/platform) wrap I/O and may use domain code, never an app.
  { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'type:domain', 'type:contracts'] },
  // Test helpers; the mixed load (libs/load) drives the platform as integrators do, through the published SDK.
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:domain', 'type:contracts', 'type:sdk'] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:platform', 'type:domain', 'type:contracts', 'type:testing'] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:platform', 'type:domain', 'type:contracts'] },
  // The ledger's read model applies the Transaction views the services' events carry: it never folds their events
  // with the services' deciders (ramping, routing), so it needs none of their rules.
  { sourceTag: 'scope:ledger', notDependOnLibsWithTags: ['role:decider'] },
  // Whole-platform tests (boot, chaos, fuzz) drive the services through the testing helpers.
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:domain', 'type:contracts', 'type:sdk'] },
  // The SDK is published alone: its code depends on nothing of ours (its tests may use the testing helpers).
  { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: [] },
];

export default [
  // JavaScript is build tooling and configuration, except the README's examples, linted below as the scripts they are.
  { ignores: ['**/dist/**', '**/node_modules/**', 'tmp/**', '**/*.js', '**/*.mjs', '!examples/*.js'] },
  ...tseslint.configs.recommended,
  {
    // The README's examples (examples/*.js): plain CommonJS scripts for Node.js, as an integrator's backend has them.
    files: ['examples/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly', Buffer: 'readonly' },
    },
    // no-unused-vars is typescript-eslint's, as everywhere else.
    rules: { ...js.configs.recommended.rules, 'no-unused-vars': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', { enforceBuildableLibDependency: true, allow: [], depConstraints: DEP_CONSTRAINTS }],
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['libs/domain/*/src/**/*.ts', 'libs/contracts/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@nestjs/*', '@mikro-orm/*', 'nats', 'ioredis', 'pg', 'fastify'] },
      ],
    },
  },
  {
    // The OpenAPI document is the gateway's alone: every other service would carry @nestjs/swagger (3 to 10 MiB of its
    // idle memory) for nothing. The routes every service serves are described in apps/gateway/src/openapi/operations.ts.
    files: ['libs/platform/**/*.ts', 'apps/*/src/**/*.ts'],
    ignores: ['apps/gateway/**', 'libs/platform/**/*.spec.ts', 'libs/platform/**/*.int-spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@nestjs/swagger', message: 'Only the gateway describes the API: see apps/gateway/src/openapi.' }],
          patterns: [{ group: ['@nestjs/swagger/*'], message: 'Only the gateway describes the API: see apps/gateway/src/openapi.' }],
        },
      ],
    },
  },
  {
    // Tests read untyped JSON responses.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/*.spec-helper.ts', 'libs/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // The published SDK: Node built-ins and its own files only (no package of the workspace, no runtime dependency).
    files: ['libs/sdk/src/**/*.ts'],
    ignores: ['libs/sdk/src/**/*.spec.ts', 'libs/sdk/src/**/*.int-spec.ts', 'libs/sdk/src/**/*.e2e-spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: `^(?!node:|\\.|(${builtinModules.join('|')})$)`, message: 'The SDK has no runtime dependencies: Node built-ins and its own files only.' }] },
      ],
    },
  },
  // The SDK's end-to-end tests start the platform through the testing helpers, as the other e2e tests do.
  testsMayUseTestingHelpers(['libs/sdk/src/**/*.spec.ts', 'libs/sdk/src/**/*.e2e-spec.ts'], 'type:sdk'),
  // Platform libraries' integration tests start real infrastructure (an anvil node) through the testing helpers.
  testsMayUseTestingHelpers(['libs/platform/**/*.int-spec.ts'], 'type:platform'),
  // Layout is Prettier's (`npm run format`; `npm run lint` checks it): no lint rule may argue with it.
  prettier,
];

/** The tests in `files`, of libraries tagged `sourceTag`, may also import the testing helpers (libs/testing). */
function testsMayUseTestingHelpers(files, sourceTag) {
  return {
    files,
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints: [
            ...DEP_CONSTRAINTS.filter((constraint) => constraint.sourceTag !== sourceTag),
            { sourceTag, onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:domain', 'type:contracts'] },
          ],
        },
      ],
    },
  };
}
