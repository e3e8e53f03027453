<?php
// Makes PHP strings for tests/cli/foreign.tsv: php gen.php
$rows = [];
$rows[] = ['php password_hash argon2id', 'php argon2id', password_hash('php argon2id', PASSWORD_ARGON2ID, ['memory_cost' => 2048, 'time_cost' => 2, 'threads' => 2])];
$rows[] = ['php password_hash argon2i', 'php argon2i', password_hash('php argon2i', PASSWORD_ARGON2I, ['memory_cost' => 1024, 'time_cost' => 3, 'threads' => 1])];
$rows[] = ['php password_hash bcrypt', 'php bcrypt', password_hash('php bcrypt', PASSWORD_BCRYPT, ['cost' => 5])];
$rows[] = ['php sodium_crypto_pwhash_str', 'php sodium', sodium_crypto_pwhash_str('php sodium', 1, 8192 * 1024)];
$rows[] = ['php sodium scrypt', 'php scrypt', sodium_crypto_pwhash_scryptsalsa208sha256_str('php scrypt', 524288, 16777216)];
foreach ($rows as $r) echo implode("\t", $r), "\n";
