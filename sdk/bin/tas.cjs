#!/usr/bin/env node
'use strict';
// In this repo the CLI runs from its TypeScript sources (through tsx, a dev dependency of the repo), so it never
// runs a stale build; an installed package has only its build.
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
if (fs.existsSync(source)) {
  require('tsx/cjs');
  require(source);
} else {
  require(path.join(__dirname, '..', 'dist', 'cli', 'main.js'));
}
