// Resolves the workspace's `@ramp/<lib>` imports to the compiled libraries under dist/ at run time,
// so the compiled apps run with plain `node -r ./tools/register-paths.js dist/apps/<app>/src/main.js`.
'use strict';
const Module = require('module');
const path = require('path');

const distRoot = path.resolve(__dirname, '..', 'dist');
const original = Module._resolveFilename;
Module._resolveFilename = function resolveWorkspaceLibrary(request, parent, isMain, options) {
  if (request.startsWith('@ramp/')) {
    const [, name, ...rest] = request.split('/');
    const target = rest.length ? path.join('libs', name, 'src', ...rest) : path.join('libs', name, 'src', 'index.js');
    return original.call(this, path.join(distRoot, target), parent, isMain, options);
  }
  return original.call(this, request, parent, isMain, options);
};
