#!/usr/bin/env bash
# pwtune verify: accepts what other tools make, rejects wrong passwords and
# tampered strings (exit 1), and malformed ones with a reason (exit 2).
. "$(dirname "$0")/lib.sh"
FOREIGN=${FOREIGN:?FOREIGN must name tests/cli/foreign.tsv}
ARGON2=${ARGON2:-argon2}

verify() { printf '%s' "$1" | "$PWTUNE" verify "$2"; }

# Change one character in the middle of the hash part, keeping the
# alphabet, so the string stays well-formed.
tamper() {
	local s=$1 i c
	i=$(( ${#s} - 8 ))
	c=${s:$i:1}
	if [ "$c" = "A" ]; then c=B; else c=A; fi
	printf '%s' "${s:0:$i}$c${s:$((i + 1))}"
}

n=0
while IFS=$'\t' read -r tool pw enc; do
	case "$tool" in '#'*|'') continue ;; esac
	n=$((n + 1))
	expect_status 0 "$tool: right password" -- verify "$pw" "$enc"
	expect_stdout "$tool: says ok" "Verification ok"
	expect_status 1 "$tool: wrong password" -- verify "${pw}x" "$enc"
	expect_stdout "$tool: says failed" "Verification failed"
	expect_status 1 "$tool: tampered hash" -- verify "$pw" "$(tamper "$enc")"
done <"$FOREIGN"
[ "$n" -ge 10 ] && ok "read $n foreign strings" || bad "only $n foreign strings"

# Fresh strings from Debian's argon2 command, every variant and version.
for type in -i -d -id; do
	for v in 10 13; do
		enc=$(printf 'secret' | "$ARGON2" somesaltsalt $type -v $v -k 512 -t 2 -p 2 -e)
		expect_status 0 "argon2 $type -v $v" -- verify secret "$enc"
		expect_status 1 "argon2 $type -v $v, wrong password" -- verify secreT "$enc"
		# Changing a parameter changes the answer, never a crash.
		expect_status 1 "argon2 $type -v $v, t changed" -- verify secret "${enc/t=2/t=3}"
	done
done
# A string without v= is version 0x10, as libargon2 reads it.
enc=$(printf 'secret' | "$ARGON2" somesaltsalt -i -v 10 -k 64 -e)
expect_status 0 "no v= field means 0x10" -- verify secret "${enc/v=16\$/}"

# Malformed strings: exit 2 and the reason.
expect_status 2 "unknown format" -- verify pw '$1$abcdefgh$abcdefghijklmnopqrstuv'
expect_stderr "unknown format: named" "unknown hash format"
# What a shell leaves of an unquoted hash ($argon2id, $v, ... expanded):
# shown, with the advice to quote it.
expect_status 2 "a hash the shell expanded" -- verify pw '=19=1024,t=2,p=1=c29tZXNhbHQ=aGFzaA'
expect_stderr "... shown as given, with the advice" "it was given as '=19=1024,t=2,p=1=c29tZXNhbHQ=aGFzaA': quote the hash in single quotes"
expect_status 2 "short salt" -- verify pw '$argon2id$v=19$m=1024,t=2,p=1$c2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA'
expect_stderr "short salt: named" "salt is shorter than 8 bytes"
expect_status 2 "padding" -- verify pw '$argon2id$v=19$m=1024,t=2,p=1$c29tZXNhbHRzb21lc2FsdA==$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA'
expect_stderr "padding: named" "salt is not base64"
expect_status 2 "repeated field" -- verify pw '$argon2id$v=19$m=1024,m=1024,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA'
expect_stderr "repeated field: named" "repeated field m"
expect_status 2 "bcrypt cut short" -- verify pw '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyO'
expect_stderr "bcrypt cut short: named" "must be 60 characters"
expect_status 2 "scrypt bad hash" -- verify pw '$7$C6..../....SodiumChloride$kBGj9fHznVYFQMEn'
expect_stderr "scrypt bad hash: named" "scrypt hash"
# Memory the host cannot hold is refused before anything is allocated.
expect_status 3 "m of 4 TiB" -- verify pw '$argon2id$v=19$m=4294967295,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA'
expect_stderr "m of 4 TiB: named" "more than this host has available"
expect_status 3 "scrypt N = 2^40" -- verify pw '$7$e6..../....SodiumChloride$kBGj9fHznVYFQMEn/qDCfrDevf9YDtcDdKvEqHJLV8D'
expect_stderr "scrypt N = 2^40: named" "more than this host has available"
# What a backend cannot compute is an error, not a "failed".
enc=$(printf 'secret' | "$ARGON2" somesaltsalt -id -k 512 -p 2 -e)
expect_status 2 "libsodium on p = 2" -- sh -c "printf secret | '$PWTUNE' verify --backend libsodium '$enc'"
expect_stderr "libsodium on p = 2: named" "p = 1 only"
# Usage.
expect_status 2 "no string" -- sh -c "printf pw | '$PWTUNE' verify"
expect_stderr "no string: named" "missing the encoded string"
expect_status 2 "empty password" -- sh -c "printf '' | '$PWTUNE' verify '$enc'"
expect_stderr "empty password: named" "no password read"
expect_status 2 "unknown command" -- "$PWTUNE" frobnicate
expect_stderr "unknown command: named" "pwtune: unknown command frobnicate"
expect_stderr "unknown command: where the list is" "Try 'pwtune help'"
# A cost no service stores is refused at once, not hashed for days.
expect_status 2 "argon2id t = 4294967295: refused" -- sh -c "printf pw | timeout 10 '$PWTUNE' verify '\$argon2id\$v=19\$m=65536,t=4294967295,p=1\$c29tZXNhbHQ\$NREZw6Tfm0jwGpPVqhPpuEh4DBE8r3lSM3nh1Rd5AbE'"
expect_stderr "argon2id: says why" "KiB of passes, over the 1073741824 pwtune verifies"
expect_status 2 "bcrypt cost 31: refused" -- sh -c "printf pw | timeout 10 '$PWTUNE' verify '\$2y\$31\$wiuo5gKZw2zCAyiCNRSokOBUjlIsLl4qk2rzbzyIrULsRXFhADL8O'"
expect_stderr "bcrypt: says why" "bcrypt cost 31 is over the 24 pwtune verifies"
finish
