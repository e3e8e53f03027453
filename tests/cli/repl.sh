#!/usr/bin/env bash
# pwtune repl never shows what it did not understand: a line typed at the
# preset prompt, or after "preset", may be a password typed too early.
# What it knows (preset names, its commands) it names.
. "$(dirname "$0")/lib.sh"
P=$PWTUNE

printf 'Tr0ub4dor&3\npreset correct-horse\nhelp\nOWASP-5\npreset hunter2-battery\nPreset changed?\npresets\nexit\n' >"$TMP/in"
expect_status 0 "repl" -- sh -c "'$P' repl <'$TMP/in'"
for secret in 'Tr0ub4dor&3' correct-horse hunter2-battery; do
	if grep -qF -- "$secret" "$TMP/out" "$TMP/err"; then
		bad "repl showed '$secret'"
	else
		ok "repl did not show '$secret'"
	fi
done
[ "$(grep -c 'Unknown preset (what was typed is not shown)' "$TMP/out")" = 3 ] &&
	ok "three lines not understood, each said so" || bad "$(grep -c 'Unknown preset' "$TMP/out") unknown lines"
expect_stdout "help: what it takes" "'presets' lists them, 'help' prints this"
expect_stdout "a known preset is named" "OWASP-5: \$argon2id\$v=19\$m=7168,t=5,p=1\$"
# A line typed once a preset is chosen is a password: hashed, not shown.
grep -q 'Preset changed?' "$TMP/out" && bad "the password was shown" || ok "a password is hashed, not shown"
[ "$(grep -c '^OWASP-5: ' "$TMP/out")" = 1 ] && ok "it was hashed" || bad "not hashed"
finish
