'use strict';
// The postinstall step: bin/spill, what npm links onto PATH as `spill` (`npm install -g`,
// node_modules/.bin, `npx spill-cli`), becomes the native binary itself — a hard link to the
// platform package's bin/spill, or a copy where a link cannot be made — so no Node launcher sits
// in the call path of the hooks. It downloads nothing. When it cannot (no platform package for
// this system), bin/spill stays the Node stand-in, which says why when it is run.

const fs = require('fs');
const path = require('path');

function install() {
  let binary;
  try {
    binary = require('./index.js').binaryPath();
    fs.accessSync(binary, fs.constants.X_OK);
  } catch (e) {
    console.warn(`spill-cli: ${e.message}; bin/spill stays a Node launcher`);
    return;
  }
  const target = path.join(__dirname, 'bin', 'spill');
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    try {
      fs.linkSync(binary, tmp);
    } catch (_) {
      fs.copyFileSync(binary, tmp);
      fs.chmodSync(tmp, 0o755);
    }
    // A rename, so bin/spill is at every moment either the stand-in or the whole binary.
    fs.renameSync(tmp, target);
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch (_) {}
    console.warn(`spill-cli: could not put the binary in bin/spill (${e.message}); it stays a Node launcher`);
  }
}

install();
