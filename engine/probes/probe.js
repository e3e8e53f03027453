'use strict';
/*
 * engine/probes/probe.js: the stack probe of Node (docs/STACKS.md).
 *
 *	node probe.js WARMUP M_KIB:T:P:N...
 *
 * await argon2.hash(pw, {type: argon2id, ...}) from the argon2 npm package
 * (its own bundled build), the node-argon2 stack. The package comes from
 * node_modules beside this file, or from node/node_modules in the source
 * tree (make probe-deps).
 *
 * The package refuses t = 1 and m under 1 MiB (its argon2.limits): such a
 * point is bad usage here, as P > 1 is for libsodium.
 *
 * Exit 0 done, 1 a hash failed, 2 bad usage, 3 the package is missing.
 */
const fs = require('fs');
const path = require('path');

const PW = 'correct-horse-16';

function usage(why) {
	process.stderr.write(`probe.js: ${why}\n` +
	    'usage: node probe.js WARMUP M_KIB:T:P:N...\n');
	process.exit(2);
}

function line(obj) {
	/* A write to a pipe is asynchronous in Node: a line at a time. */
	fs.writeSync(1, JSON.stringify(obj) + '\n');
}

function countIn(s, lo, hi) {
	if (!/^[0-9]{1,10}$/.test(s))
		return null;
	const v = Number(s);
	return v >= lo && v <= hi ? v : null;
}

function load() {
	let where;
	try {
		where = require.resolve('argon2',
		    { paths: [__dirname, path.join(__dirname, 'node')] });
	} catch (e) {
		return null;
	}
	const mod = require(where);
	let version = '?';
	/* package.json is not among the package's exports: read it. */
	let dir = path.dirname(where);
	for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
		const f = path.join(dir, 'package.json');
		if (!fs.existsSync(f))
			continue;
		const pkg = JSON.parse(fs.readFileSync(f, 'utf8'));
		if (pkg.name === 'argon2') {
			version = pkg.version;
			break;
		}
	}
	return { mod, version };
}

async function main(argv) {
	if (argv.length < 2)
		usage('too few arguments');
	const warmup = countIn(argv[0], 0, 100000);
	if (warmup === null)
		usage('WARMUP is a count from 0 to 100000');
	const points = argv.slice(1).map((a) => {
		const f = a.split(':');
		if (f.length !== 4)
			usage('a POINT is M_KIB:T:P:N');
		const m = countIn(f[0], 8, 4194304), t = countIn(f[1], 1, 65535);
		const p = countIn(f[2], 1, 255), n = countIn(f[3], 1, 100000);
		if (m === null || t === null || p === null || n === null ||
		    m < 8 * p)
			usage(`bad POINT ${a} (M_KIB:T:P:N, 8 KiB a lane at least)`);
		/* The package's own limits (argon2.limits): t >= 2, m >= 1 MiB. */
		if (t < 2 || m < 1024)
			usage(`bad POINT ${a}: the argon2 npm package takes ` +
			    'T >= 2 and M_KIB >= 1024');
		return { m, t, p, n };
	});

	let lib;
	try {
		lib = load();
	} catch (e) {
		line({ error: `the argon2 npm package does not load: ${e.message}` });
		process.exit(3);
	}
	if (lib === null) {
		line({ error: 'node module argon2 (the argon2 npm package) is not ' +
		    'installed (make probe-deps)' });
		process.exit(3);
	}
	const argon2 = lib.mod;
	line({ probe: 'node-argon2', runtime: `Node ${process.version}`,
	    library: `argon2 ${lib.version} (npm, its bundled build)` });

	const hash = async (pt) => {
		try {
			await argon2.hash(PW, { type: argon2.argon2id,
			    memoryCost: pt.m, timeCost: pt.t, parallelism: pt.p });
		} catch (e) {
			line({ error: `argon2.hash: ${e.message}` });
			process.exit(1);
		}
	};
	for (const pt of points) {
		/* Untimed, at each point's m and p, two passes (its least). */
		for (let i = 0; i < warmup; i++)
			await hash({ m: pt.m, t: Math.min(pt.t, 2), p: pt.p });
		const samples = [];
		for (let k = 0; k < pt.n; k++) {
			const a = process.hrtime.bigint();
			await hash(pt);
			const ns = process.hrtime.bigint() - a;
			samples.push(Math.round(Number(ns) / 1e3) / 1e3);
		}
		line({ m_kib: pt.m, t: pt.t, p: pt.p, samples_ms: samples });
	}
	return 0;
}

main(process.argv.slice(2)).then((rc) => process.exit(rc));
