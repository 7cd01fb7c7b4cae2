import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', 'tmp/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints: [
            // Contracts are plain types and typed errors: they depend on nothing of ours.
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
            // Domain libraries hold business rules: no NestJS, MikroORM, NATS or Redis, only other domain code.
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:contracts'] },
            // Infrastructure libraries wrap I/O and may use domain code, never an app.
            { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:domain', 'type:contracts'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:infra', 'type:domain', 'type:contracts'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:infra', 'type:domain', 'type:contracts', 'type:testing'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:infra', 'type:domain', 'type:contracts'] },
            // Whole-platform tests (boot, chaos, fuzz) drive the services through the testing helpers.
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:infra', 'type:domain', 'type:contracts'] },
          ],
        },
      ],
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['libs/{money,banking,chains,pricing,contracts,bookkeeping,ramping,transactions,routing,webhooks}/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@nestjs/*', '@mikro-orm/*', 'nats', 'ioredis', 'pg', 'fastify'] },
      ],
    },
  },
  {
    // Tests read untyped JSON responses.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'libs/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
