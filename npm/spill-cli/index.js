'use strict';
// Where the spill binary is. The binary comes in a platform package (chosen by npm through its
// `os` and `cpu` fields, no install scripts, nothing downloaded at install time); a harness runs it
// directly with this path, because a Node launcher in front of it would cost ~80 ms a call.

const path = require('path');

const PLATFORMS = {
  'linux x64': 'spill-cli-linux-x64',
};

function binaryPath() {
  const key = `${process.platform} ${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    throw new Error(
      `spill-cli: no spill binary for ${key} (built for: ${Object.keys(PLATFORMS).join(', ')})`,
    );
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch (_) {
    throw new Error(
      `spill-cli: the platform package ${pkg} is not installed ` +
        '(optional dependencies skipped? install again without --omit=optional)',
    );
  }
  return path.join(dir, 'bin', 'spill');
}

module.exports = { binaryPath };
