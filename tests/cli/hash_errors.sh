#!/usr/bin/env bash
# pwtune hash: usage errors exit 2 with one line naming the flag, what was
# given and what is allowed, then where the help is (no usage); bad input
# exits 2 with a message naming what was wrong, before anything is
# printed; what the host lacks (memory, a file) exits 3; the extras
# (--json, --backend, --secret-file, --ad) do what they say.
. "$(dirname "$0")/lib.sh"
pw() { printf 'password' | "$PWTUNE" hash "$@"; }

expect_status 2 "no salt" -- pw
expect_stderr "no salt: says so" "missing salt"
expect_stderr "no salt: where the help is" "Try 'pwtune help hash'"
[ "$(wc -l <"$TMP/err")" -eq 2 ] && ok "no salt: two lines, no usage" || bad "no salt: $(wc -l <"$TMP/err") lines"
expect_status 2 "unknown option" -- pw somesalt -x
expect_stderr "unknown option: named" "unknown option -x"
expect_status 2 "missing value" -- pw somesalt -t
expect_stderr "missing value: named" "pwtune hash: -t needs a value: a whole number from 1 to 4294967295 (passes)"
expect_status 2 "t = 0" -- pw somesalt -t 0
expect_stderr "t = 0: named" "pwtune hash: -t must be a whole number from 1 to 4294967295 (passes), not 0"
expect_status 2 "-m 33" -- pw somesalt -m 33
expect_status 2 "-k -5" -- pw somesalt -k -5
expect_status 2 "-p 1x" -- pw somesalt -p 1x
expect_status 2 "-l 65" -- pw somesalt -l 65
expect_status 2 "-v 12" -- pw somesalt -v 12
expect_status 2 "-e and -r" -- pw somesalt -e -r
expect_stderr "-e and -r: named" "choose one of -e, -r and --json"
expect_status 2 "two salts" -- pw somesalt othersalt
# The second word may be a password typed where it does not go: not shown.
grep -q othersalt "$TMP/err" "$TMP/out" && bad "two salts: the second word was shown" ||
	ok "two salts: the second word is not shown"
expect_stderr "two salts: says where the password goes" "the password is read from standard input"
expect_status 2 "bad backend" -- pw somesalt --backend openssl
expect_status 2 "short salt" -- pw short
expect_stderr "short salt: named" "salt is shorter than 8 bytes (5 given)"
expect_stderr "short salt: where to read more" "Try 'pwtune help hash'"
[ ! -s "$TMP/out" ] && ok "short salt: nothing on stdout" || bad "short salt printed"
expect_status 2 "salt over 64 bytes" -- pw "$(printf 'x%.0s' {1..65})"
expect_stderr "long salt: named" "salt is longer than 64 bytes (65 given)"
expect_status 2 "empty password" -- sh -c "printf '' | '$PWTUNE' hash somesalt"
expect_stderr "empty password: named" "no password read"
head -c 4097 /dev/zero | tr '\0' 'a' >"$TMP/long"
expect_status 2 "over-long password" -- sh -c "'$PWTUNE' hash somesalt <'$TMP/long'"
expect_stderr "over-long password: named" "longer than 4096 bytes"
head -c 4096 /dev/zero | tr '\0' 'a' >"$TMP/max"
expect_status 0 "4096-byte password" -- sh -c "'$PWTUNE' hash somesalt -k 64 <'$TMP/max'"
expect_status 3 "m over the host" -- pw somesalt -m 32
expect_stderr "m over the host: named" "more than this host has available"
expect_status 2 "m below 8p" -- pw somesalt -k 64 -p 9
expect_stderr "m below 8p: named" "m must be at least 8 * p KiB"
expect_status 2 "p the host cannot hold" -- pw somesalt -p 16777215
expect_status 2 "libsodium with p = 2" -- pw somesaltsomesalt -id -p 2 --backend libsodium
expect_stderr "libsodium p: named" "p = 1 only"
expect_status 2 "libsodium with an 8-byte salt" -- pw somesalt -id --backend libsodium
expect_stderr "libsodium salt: named" "exactly 16 bytes"
expect_status 3 "missing secret file" -- pw somesalt --secret-file "$TMP/nope"
expect_stderr "missing secret file: named" "No such file"
expect_status 0 "--help" -- "$PWTUNE" hash --help
expect_stdout "--help says wall-clock" "wall-clock"

# libsodium and libargon2 agree where both compute.
a=$(printf 'pw' | "$PWTUNE" hash somesaltsomesalt -id -k 1024 -t 2 -r)
b=$(printf 'pw' | "$PWTUNE" hash somesaltsomesalt -id -k 1024 -t 2 -r --backend libsodium)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "libsodium = libargon2" || bad "backends differ: $a / $b"

# --json carries what the text carries.
expect_status 0 "--json" -- pw somesalt -id -k 256 -t 2 -p 2 --json
python3 - "$TMP/out" "$(printf 'password' | "$PWTUNE" hash somesalt -id -k 256 -t 2 -p 2 -r)" <<'PY' && ok "--json fields" || bad "--json fields"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["type"] == "argon2id" and j["memory_kib"] == 256, j
assert j["iterations"] == 2 and j["parallelism"] == 2 and j["version"] == 19, j
assert j["hash"] == sys.argv[2], (j["hash"], sys.argv[2])
assert j["encoded"].startswith("$argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$"), j
assert j["backend"] == "libargon2" and j["verified"] is True, j
assert isinstance(j["seconds"], float) and j["seconds"] >= 0, j
PY

# A secret and associated data change the hash, and verify needs both.
printf 'pepper' >"$TMP/secret"
enc=$(pw somesalt -id -k 64 -e --secret-file "$TMP/secret" --ad user42)
plain=$(pw somesalt -id -k 64 -e)
[ -n "$enc" ] && [ "$enc" != "$plain" ] && ok "secret changes the hash" || bad "secret ignored"
expect_status 0 "verify with secret and ad" -- sh -c "printf password | '$PWTUNE' verify --secret-file '$TMP/secret' --ad user42 '$enc'"
expect_status 1 "verify without the secret" -- sh -c "printf password | '$PWTUNE' verify --ad user42 '$enc'"
expect_status 1 "verify without the ad" -- sh -c "printf password | '$PWTUNE' verify --secret-file '$TMP/secret' '$enc'"
finish
