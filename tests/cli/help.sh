#!/usr/bin/env bash
# pwtune help CMD, CMD --help and CMD -h work for every subcommand and db's
# own commands: the usage on standard output, nothing on standard error,
# exit 0. The top-level help lists every command, help and --version; the
# bash completion knows the flags the commands take.
. "$(dirname "$0")/lib.sh"
P=$PWTUNE
COMPLETION=$(dirname "$0")/../../cli/pwtune.bash-completion

helps() { # NAME WORD... : the usage of the command, each way
	local name=$1
	shift
	for form in "help $*" "$* --help" "$* -h"; do
		# shellcheck disable=SC2086
		expect_status 0 "$form" -- "$P" $form
		if [ -s "$TMP/out" ] && [ ! -s "$TMP/err" ] && grep -q "Usage" "$TMP/out"; then
			ok "$form: usage on stdout only"
		else
			bad "$form: stdout $(wc -c <"$TMP/out") bytes, stderr $(wc -c <"$TMP/err")"
		fi
	done
}
for c in hash verify recommend bench stress soak repl db; do
	helps "$c" "$c"
done
for v in list export import check; do
	helps "db $v" db "$v"
done
expect_status 0 "recommend --help" -- "$P" recommend --help
expect_stdout "recommend --help: -q is described, not only listed" "  -q, --quiet    no progress on stderr"
# --stack's help names every stack the command takes (as its error does).
"$P" recommend --target-ms 250 --stack zzz 2>"$TMP/err" >/dev/null
known=$(sed -n 's/.*known are \(.*\), or a name.*/\1/p' "$TMP/err" | tr -d ',')
missing=""
for n in $known; do
	awk '/--stack NAME/,/observations in the store/' "$TMP/out" | grep -qw -- "$n" || missing="$missing $n"
done
if [ -n "$known" ] && [ -z "$missing" ]; then
	ok "recommend --help: --stack lists the $(echo $known | wc -w) stacks"
else
	bad "recommend --help: --stack does not list:${missing:- (no names in the error)}"
fi
# Every value an option takes is in its help: hash --backend takes auto.
expect_status 0 "hash --help" -- "$P" hash --help
expect_stdout "hash --help: --backend's values, auto among them" "[--backend libargon2|libsodium|auto]"
printf 'password' | "$P" hash somesalt -id -t 1 -k 64 --backend auto -e >"$TMP/out" 2>"$TMP/err" &&
	grep -q '^\$argon2id\$v=19\$m=64,t=1,p=1\$' "$TMP/out" && ok "hash --backend auto: hashes" ||
	bad "hash --backend auto: $(cat "$TMP/err")"
expect_status 0 "db list --help with other options" -- "$P" db list --db x.db --help
expect_stdout "db list --help: db's usage" "pwtune db list"

expect_status 0 "help" -- "$P" help
for c in hash verify recommend bench stress soak repl db help; do
	grep -q "^  $c " "$TMP/out" && ok "help lists $c" || bad "help does not list $c"
done
expect_stdout "help lists --version" "--version"
expect_stdout "help says where the exit statuses are" "pwtune(1)"
expect_status 0 "--help" -- "$P" --help
expect_status 0 "--version" -- "$P" --version
grep -qE '^pwtune [0-9.]+ \(libsodium [0-9.]+, libargon2 [0-9]+\)$' "$TMP/out" &&
	ok "--version: the version and both libraries'" || bad "--version: $(cat "$TMP/out")"
expect_status 2 "help of an unknown command" -- "$P" help frob
expect_stderr "help of an unknown command: named" "pwtune help: unknown command frob"
expect_status 2 "no command" -- "$P"

# The completion offers what the commands take.
comp() { # WORDS...: what completing after them offers
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_pwtune
	printf '%s\n' "${COMPREPLY[@]}"
}
# shellcheck source=/dev/null
. "$COMPLETION"
comp pwtune "" | grep -qx help && ok "completion: help" || bad "completion: no help"
comp pwtune "" | grep -qx -- --version && ok "completion: --version" || bad "completion: no --version"
comp pwtune help "" | grep -qx recommend && ok "completion: help's commands" || bad "completion: help's commands"
comp pwtune recommend --fo | grep -qx -- --format && ok "completion: recommend --format" || bad "completion: --format"
[ "$(comp pwtune recommend --format e)" = env ] && ok "completion: --format's values" || bad "completion: --format's values"
comp pwtune stress --mem | grep -qx -- --memory && ok "completion: stress --memory" || bad "completion: stress --memory"
comp pwtune stress - | grep -qx -- -k && ok "completion: stress -k" || bad "completion: stress -k"
comp pwtune soak - | grep -qx -- -k && ok "completion: soak -k" || bad "completion: soak -k"
comp pwtune hash - | grep -qx -- --memory && ok "completion: hash --memory" || bad "completion: hash --memory"
comp pwtune bench --mem | grep -qx -- --memory && ok "completion: bench --memory" || bad "completion: bench --memory"
comp pwtune bench - | grep -qx -- -k && bad "completion: bench offers -k" || ok "completion: bench does not offer -k"
comp pwtune db list - | grep -qx -- --help && ok "completion: db list --help" || bad "completion: db list --help"
finish
