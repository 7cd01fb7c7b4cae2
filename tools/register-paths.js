// Resolves the workspace's `@ramp/<lib>` imports to the compiled libraries under dist/ at run time,
// so the compiled apps run with plain `node -r ./tools/register-paths.js dist/apps/<app>/src/main.js`.
// A library is a folder with src/ under libs/ (`libs/contracts`) or one level deeper, by layer (`libs/domain/money`,
// `libs/platform/messaging`); its name is the folder's.
'use strict';
const fs = require('fs');
const Module = require('module');
const path = require('path');

const distLibs = path.resolve(__dirname, '..', 'dist', 'libs');

/** `name` -> dist folder of the library, found once from the compiled tree. */
function libraryFolders() {
  const folders = new Map();
  const visit = (dir, depth) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const folder = path.join(dir, entry.name);
      if (fs.existsSync(path.join(folder, 'src'))) folders.set(entry.name, folder);
      else if (depth < 1) visit(folder, depth + 1);
    }
  };
  visit(distLibs, 0);
  return folders;
}

let folders;
const original = Module._resolveFilename;
Module._resolveFilename = function resolveWorkspaceLibrary(request, parent, isMain, options) {
  if (request.startsWith('@ramp/')) {
    const [, name, ...rest] = request.split('/');
    folders ??= libraryFolders();
    const folder = folders.get(name) ?? path.join(distLibs, name);
    const target = rest.length ? path.join(folder, 'src', ...rest) : path.join(folder, 'src', 'index.js');
    return original.call(this, target, parent, isMain, options);
  }
  return original.call(this, request, parent, isMain, options);
};
