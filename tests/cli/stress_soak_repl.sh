#!/usr/bin/env bash
# pwtune stress, soak and repl: smoke runs with small memory, their output
# format, and a flat RSS while idle in soak.
. "$(dirname "$0")/lib.sh"

expect_status 0 "stress" -- "$PWTUNE" stress --iterations 4 --memory 4MiB --timeCost 2
expect_stdout "stress: configuration" "Memory cost:            4096 KB"
expect_stdout "stress: header" "[       avg           min        max (95%) ]"
expect_stdout "stress: hash line" "Hash  : ["
expect_stdout "stress: verify line" "Verify: ["
expect_stdout "stress: total" "Total : "
expect_status 0 "stress raw with secret and AD" -- "$PWTUNE" stress --iterations 2 \
	--memoryCost 2048 --outputType raw --secretLength 8 --adLength 16 --type d --version 10
expect_stdout "stress: raw" "Output type:            raw"
expect_stdout "stress: argon2d v10" "Version:                v10"
expect_status 2 "stress: 0 iterations" -- "$PWTUNE" stress --iterations 0
expect_status 2 "stress: libsodium p = 2" -- "$PWTUNE" stress --backend libsodium -p 2 -m 10
expect_stderr "stress: libsodium p = 2: named" "p = 1 only"

expect_status 0 "soak" -- "$PWTUNE" soak --runtime 5 --collect-stats 1 --threads 2 --memory 8MiB -t 1
expect_stdout "soak: CSV header" "T,C,%CPU,RSS,RSSidle,PeakRSS,FDs,Threads"
expect_stdout "soak: totals" "hash/verify in"
expect_stdout "soak: trend" "KiB per hour"
python3 - "$TMP/out" <<'PY' && ok "soak: RSS idle is flat, fds and threads constant" || { bad "soak: RSS"; cat "$TMP/out"; }
import sys
rows = [l.strip().split(",") for l in open(sys.argv[1])
        if l[:1].isdigit() and l.count(",") == 7]
assert len(rows) >= 5, rows
mid = rows[1:-1]      # the workers are running in these
idle = [int(r[4]) for r in mid]
assert max(idle) - min(idle) <= 512, idle        # KiB
assert len({r[6] for r in mid}) == 1, "fds changed"
assert len({r[7] for r in mid}) == 1, "threads changed"
counts = [int(r[1]) for r in rows]
assert counts == sorted(counts) and counts[-1] > 0
PY
expect_status 2 "soak: bad runtime" -- "$PWTUNE" soak --runtime 0

printf 'Nope\nOWASP-5\nhunter2\npresets\npreset Bcrypt10\nhunter2\npreset Nope\nexit\n' >"$TMP/repl.in"
expect_status 0 "repl" -- sh -c "'$PWTUNE' repl <'$TMP/repl.in'"
expect_stdout "repl: lists presets" "Choose hashing preset (Argon2idFast"
expect_stdout "repl: unknown preset" "Unknown preset (what was typed is not shown)"
grep -q Nope "$TMP/out" && bad "repl: echoed what it did not understand" || ok "repl: what it did not understand is not shown"
expect_stdout "repl: hashes with the preset" 'OWASP-5: $argon2id$v=19$m=7168,t=5,p=1$'
expect_stdout "repl: changes preset" "Preset changed to Bcrypt10"
expect_stdout "repl: bcrypt" 'Bcrypt10: $2b$10$'
enc=$(grep -o 'OWASP-5: [^ ]*' "$TMP/out" | cut -d' ' -f2)
expect_status 0 "repl: its hash verifies" -- sh -c "printf hunter2 | '$PWTUNE' verify '$enc'"
finish
