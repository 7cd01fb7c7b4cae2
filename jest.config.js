// Two projects: `unit` (pure logic, *.spec.ts) and `integration` (*.int-spec.ts against the real PostgreSQL,
// NATS and Redis; *.e2e-spec.ts through HTTP against the running services).
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleNameMapper,
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json', diagnostics: false }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int-spec.ts', '<rootDir>/{apps,libs,tools}/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest-timeout.js'],
    },
  ],
};
