#!/usr/bin/env bash
# -m means the same in every command that takes it: 2^N KiB, as in the
# reference argon2 command; -k is KiB; --memory takes a size with a unit.
# The other reading is refused with a message that says which flag takes
# it (stress -m 16 ran 16 KiB once, and -m 16MiB 16 MiB).
. "$(dirname "$0")/lib.sh"
P=$PWTUNE
cd "$TMP" || exit 1
printf 'password' >"$TMP/pw"
# Each refusal below is bounded (few iterations, a short runtime, one
# small point): were it not refused, it would end soon all the same.

hash_m() { "$P" hash somesalt -id -t 1 -e "$@" <"$TMP/pw"; }
case $(hash_m -m 16) in '$argon2id$v=19$m=65536,t=1,p=1$'*) ok "hash -m 16: 64 MiB" ;; *) bad "hash -m 16: $(hash_m -m 16)" ;; esac
case $(hash_m -k 1024) in '$argon2id$v=19$m=1024,t=1,p=1$'*) ok "hash -k 1024: 1 MiB" ;; *) bad "hash -k 1024" ;; esac
case $(hash_m --memory 2MiB) in '$argon2id$v=19$m=2048,t=1,p=1$'*) ok "hash --memory 2MiB" ;; *) bad "hash --memory 2MiB" ;; esac
expect_status 2 "hash -m 64MiB: refused" -- sh -c "'$P' hash somesalt -m 64MiB <'$TMP/pw'"
expect_stderr "hash -m 64MiB: says what -m is and what takes a size" \
	"pwtune hash: -m must be a whole number from 3 to 32 (log2 of KiB: 16 is 64 MiB), not 64MiB: for a size use -k KiB or --memory 64MiB"

expect_status 0 "stress -m 10: 1 MiB" -- "$P" stress -m 10 -t 1 --iterations 1
expect_stdout "stress -m 10: 1024 KB" "Memory cost:            1024 KB"
expect_status 0 "stress -k 2048" -- "$P" stress -k 2048 -t 1 --iterations 1
expect_stdout "stress -k 2048: 2048 KB" "Memory cost:            2048 KB"
expect_status 0 "stress --memory 3MiB" -- "$P" stress --memory 3MiB -t 1 --iterations 1
expect_stdout "stress --memory 3MiB: 3072 KB" "Memory cost:            3072 KB"
expect_status 0 "stress --memoryCost 1536 (Jargon2's KiB)" -- "$P" stress --memoryCost 1536 -t 1 --iterations 1
expect_stdout "stress --memoryCost: 1536 KB" "Memory cost:            1536 KB"
expect_status 2 "stress -m 16MiB: refused" -- "$P" stress -m 16MiB --iterations 1
expect_stderr "stress -m 16MiB: named" "pwtune stress: -m must be a whole number from 3 to 32 (log2 of KiB: 16 is 64 MiB), not 16MiB: for a size use -k KiB or --memory 16MiB"
expect_status 2 "stress -m 2: under Argon2's 8 KiB" -- "$P" stress -m 2 --iterations 1
expect_status 2 "stress --memory 4: a bare number is KiB, under 8 KiB" -- "$P" stress --memory 4 --iterations 1

expect_status 0 "soak -m 10" -- "$P" soak -m 10 -t 1 --runtime 1 --collect-stats 1 --threads 1
expect_status 2 "soak -m 19MiB: refused" -- "$P" soak -m 19MiB --runtime 1 --collect-stats 1 --threads 1
expect_stderr "soak -m 19MiB: named" "for a size use -k KiB or --memory 19MiB"

expect_status 0 "bench -m 11: 2 MiB" -- "$P" bench -m 11 --t 1 --backend libsodium --repeats 1 --no-json -q
expect_stdout "bench -m 11: the 2 MiB row" "libsodium.Argon2id  2 MiB"
expect_status 2 "bench -m 2MiB: refused" -- "$P" bench -m 2MiB --t 1 --backend libsodium --repeats 1 --no-json -q
expect_stderr "bench -m 2MiB: says --m takes sizes" "for sizes use --m 64MiB,256MiB"
# A bare number is KiB: taken, with a note where MiB was likely meant.
expect_status 0 "hash --memory 64: 64 KiB" -- sh -c "'$P' hash somesalt -id -t 1 -e --memory 64 <'$TMP/pw'"
expect_stdout "hash --memory 64: m=64" '$argon2id$v=19$m=64,t=1,p=1$'
expect_stderr "hash --memory 64: a note that it is KiB" "pwtune hash: --memory 64 is 64 KiB (a size without a unit is KiB: 64MiB for MiB)"
expect_status 0 "bench --m 64,1MiB: taken" -- "$P" bench --m 64,1MiB --t 1 --backend libsodium --repeats 1 --no-json -q
expect_stderr "bench --m 64: a note that it is KiB" "pwtune bench: --m 64 is 64 KiB (a size without a unit is KiB: 64MiB for MiB)"
expect_status 0 "hash --memory 2048: no note" -- sh -c "'$P' hash somesalt -id -t 1 -e --memory 2048 <'$TMP/pw'"
[ ! -s "$TMP/err" ] && ok "hash --memory 2048: nothing on stderr" || bad "hash --memory 2048: $(cat "$TMP/err")"
expect_status 0 "hash -k 64 (the reference's KiB): no note" -- sh -c "'$P' hash somesalt -id -t 1 -e -k 64 <'$TMP/pw'"
[ ! -s "$TMP/err" ] && ok "hash -k 64: nothing on stderr" || bad "hash -k 64: $(cat "$TMP/err")"
expect_status 2 "bench -k 2: refused" -- "$P" bench -k 2 --m 2MiB --t 1 --backend libsodium --repeats 1 --no-json -q
expect_stderr "bench -k: says --concurrency" "pwtune bench: -k is the memory in KiB in pwtune (as in argon2), not taken here: for hashes at once use --concurrency"
expect_status 2 "recommend -k 2: refused" -- "$P" recommend --target-ms 250 -k 2 --from "${RUN:?}"
expect_stderr "recommend -k: says --concurrency" "for hashes at once use --concurrency"
finish
