// Runs a compiled workspace script after an incremental build, e.g. `node tools/run.js apps/gateway/src/cli/keys list`.
// Build output goes to standard error so that a command's standard output stays clean (the keys command prints JSON).
'use strict';
const path = require('path');
const fs = require('fs');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..');
if (!fs.existsSync(path.join(root, 'node_modules', '.bin', 'tsc'))) {
  process.stderr.write('Dependencies are not installed: run `npm install` (or `npm start`, which installs them) first.\n');
  process.exit(2);
}
const build = spawnSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
if (build.status !== 0) {
  process.stderr.write(`The build failed:\n${build.stdout}${build.stderr}`);
  process.exit(1);
}
const compiled = path.join(root, 'dist', `${process.argv[2]}.js`);
require('./register-paths');
process.argv.splice(1, 2, compiled);
require(compiled);
