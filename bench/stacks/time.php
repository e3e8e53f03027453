<?php
/*
 * bench/stacks/time.php: times one (m, t, p) in PHP, as a PHP service
 * hashes, independently of pwtune and of its probes.
 *
 *	php time.php password_hash|sodium M_KIB T P WARMUP N
 *
 * Prints the N latencies in milliseconds on one line; exit 3 when PHP
 * lacks the function.
 */
[, $mode, $m, $t, $p, $w, $n] = array_pad($argv, 7, null);
if ($n === null || ($mode !== 'password_hash' && $mode !== 'sodium')) {
	fwrite(STDERR, "usage: php time.php password_hash|sodium M_KIB T P WARMUP N\n");
	exit(2);
}
[$m, $t, $p, $w, $n] = array_map('intval', [$m, $t, $p, $w, $n]);
if ($mode === 'password_hash') {
	if (!defined('PASSWORD_ARGON2ID'))
		exit(3);
	$opts = ['memory_cost' => $m, 'time_cost' => $t, 'threads' => $p];
	$one = fn() => password_hash('bench-stacks-pw!', PASSWORD_ARGON2ID, $opts);
} else {
	if (!function_exists('sodium_crypto_pwhash_str'))
		exit(3);
	$one = fn() => sodium_crypto_pwhash_str('bench-stacks-pw!', $t, $m * 1024);
}
for ($i = 0; $i < $w; $i++)
	$one();
$out = [];
for ($i = 0; $i < $n; $i++) {
	$a = hrtime(true);
	$one();
	$out[] = sprintf('%.3f', (hrtime(true) - $a) / 1e6);
}
echo implode(' ', $out), "\n";
