<?php
/*
 * engine/probes/probe.php: the stack probe of PHP (docs/STACKS.md).
 *
 *	php probe.php password_hash|sodium WARMUP M_KIB:T:P:N...
 *
 * password_hash: password_hash($pw, PASSWORD_ARGON2ID, [...]), what the
 * php stack's snippet calls (PHP's libargon2, its default allocator).
 * sodium: sodium_crypto_pwhash_str($pw, t, m * 1024), the php-sodium
 * stack (libsodium; one lane only, P must be 1).
 *
 * Exit 0 done, 1 a hash failed, 2 bad usage, 3 PHP lacks the function.
 */

const PW = 'correct-horse-16';

function usage(string $why): void
{
	fwrite(STDERR, "probe.php: $why\n" .
	    "usage: php probe.php password_hash|sodium WARMUP M_KIB:T:P:N...\n");
	exit(2);
}

function line(array $a): void
{
	echo json_encode($a, JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION), "\n";
	flush();
}

function fail(string $why): void
{
	line(['error' => $why]);
	fwrite(STDERR, "probe.php: $why\n");
	exit(1);
}

/*
 * The shared library lib (libargon2) this process loaded, as its map
 * gives it: ['object' => its file, 'object_id' => 'DEV INODE'], or []:
 * the daemon compares the identity with its own.
 */
function mapped(string $lib): array
{
	$rows = @file('/proc/self/maps', FILE_IGNORE_NEW_LINES);
	foreach ($rows === false ? [] : $rows as $row) {
		$f = preg_split('/\s+/', $row, 6);
		if (count($f) === 6 && $f[5] !== '' && $f[5][0] === '/' &&
		    str_starts_with(basename($f[5]), "$lib.so"))
			return ['object' => $f[5], 'object_id' => "$f[3] $f[4]"];
	}
	return [];
}

/* A decimal in [lo, hi], or null. */
function count_in(string $s, int $lo, int $hi): ?int
{
	if (!preg_match('/^[0-9]{1,10}$/', $s))
		return null;
	$v = (int)$s;
	return $v >= $lo && $v <= $hi ? $v : null;
}

$argv = $_SERVER['argv'];
if (count($argv) < 4)
	usage('too few arguments');
$mode = $argv[1];
if ($mode !== 'password_hash' && $mode !== 'sodium')
	usage('the mode is password_hash or sodium');
$warmup = count_in($argv[2], 0, 100000);
if ($warmup === null)
	usage('WARMUP is a count from 0 to 100000');
$points = [];
foreach (array_slice($argv, 3) as $a) {
	$f = explode(':', $a);
	if (count($f) !== 4)
		usage('a POINT is M_KIB:T:P:N');
	$m = count_in($f[0], 8, 4194304);
	$t = count_in($f[1], 1, 65535);
	$p = count_in($f[2], 1, 255);
	$n = count_in($f[3], 1, 100000);
	if ($m === null || $t === null || $p === null || $n === null ||
	    $m < 8 * $p)
		usage("bad POINT $a (M_KIB:T:P:N, 8 KiB a lane at least)");
	if ($mode === 'sodium' && $p !== 1)
		usage('libsodium hashes one lane: P must be 1');
	$points[] = [$m, $t, $p, $n];
}

if ($mode === 'password_hash') {
	if (!defined('PASSWORD_ARGON2ID')) {
		line(['error' => 'PHP ' . PHP_VERSION .
		    ' has no PASSWORD_ARGON2ID (built without libargon2)']);
		exit(3);
	}
	line(['probe' => 'php', 'runtime' => 'PHP ' . PHP_VERSION,
	    'library' => 'libargon2 through password_hash (its default allocator)'] +
	    mapped('libargon2'));
	$hash = function (int $m, int $t, int $p): void {
		try {
			$h = password_hash(PW, PASSWORD_ARGON2ID,
			    ['memory_cost' => $m, 'time_cost' => $t,
			    'threads' => $p]);
		} catch (Throwable $e) {
			fail('password_hash: ' . $e->getMessage());
		}
		if (!is_string($h))
			fail('password_hash failed');
	};
} else {
	if (!function_exists('sodium_crypto_pwhash_str')) {
		line(['error' => 'PHP ' . PHP_VERSION .
		    ' has no sodium extension (sodium_crypto_pwhash_str)']);
		exit(3);
	}
	line(['probe' => 'php-sodium', 'runtime' => 'PHP ' . PHP_VERSION,
	    'library' => 'libsodium ' . SODIUM_LIBRARY_VERSION .
	    ' through ext/sodium'] + mapped('libsodium'));
	$hash = function (int $m, int $t, int $p): void {
		try {
			sodium_crypto_pwhash_str(PW, $t, $m * 1024);
		} catch (Throwable $e) {
			fail('sodium_crypto_pwhash_str: ' . $e->getMessage());
		}
	};
}

foreach ($points as [$m, $t, $p, $n]) {
	/* Untimed, at each point's m and p, two passes at most. */
	for ($i = 0; $i < $warmup; $i++)
		$hash($m, min($t, 2), $p);
	$samples = [];
	for ($k = 0; $k < $n; $k++) {
		$a = hrtime(true);
		$hash($m, $t, $p);
		$samples[] = round((hrtime(true) - $a) / 1e6, 3);
	}
	line(['m_kib' => $m, 't' => $t, 'p' => $p, 'samples_ms' => $samples]);
}
exit(0);
