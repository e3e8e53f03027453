'use strict';
// bench/stacks/time.js: times one (m, t, p) in Node with the argon2 npm
// package, as a Node service hashes, independently of pwtune and of its
// probes (the package from NODE_PATH: run.py points it at the pinned one).
//
//	node time.js M_KIB T P WARMUP N
//
// Prints the N latencies in milliseconds on one line; exit 3 when the
// package is missing.
const [m, t, p, w, n] = process.argv.slice(2).map(Number);
if (!(n >= 1)) {
	console.error('usage: node time.js M_KIB T P WARMUP N');
	process.exit(2);
}
let argon2;
try {
	argon2 = require('argon2');
} catch (e) {
	process.exit(3);
}
const opts = { type: argon2.argon2id, memoryCost: m, timeCost: t,
    parallelism: p };
(async () => {
	for (let i = 0; i < w; i++)
		await argon2.hash('bench-stacks-pw!', opts);
	const out = [];
	for (let i = 0; i < n; i++) {
		const a = performance.now();
		await argon2.hash('bench-stacks-pw!', opts);
		out.push((performance.now() - a).toFixed(3));
	}
	console.log(out.join(' '));
})().catch((e) => {
	console.error(`argon2.hash: ${e.message}`);
	process.exit(1);
});
