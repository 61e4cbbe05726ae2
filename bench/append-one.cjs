// Captures one origin file in-process (as `brain watch` does for a changed file) and prints the
// milliseconds the capture pass took, without node's start-up.
const path = require('node:path');
require('tsx/cjs');
const { capture } = require(path.join(__dirname, '..', 'src', 'core', 'floor', 'capture.ts'));
(async () => {
  const file = process.argv[2];
  const t0 = process.hrtime.bigint();
  await capture({ home: process.env.BRAIN_HOME, only: new Set([file]), source: 'watch' });
  console.log((Number(process.hrtime.bigint() - t0) / 1e6).toFixed(3));
})();
