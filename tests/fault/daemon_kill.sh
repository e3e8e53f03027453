#!/usr/bin/env bash
# F1: pwtuned killed with SIGKILL at a random moment of a run, then
# restarted, KILLS times (50 by default; fewer in sanitizer builds). Each
# time: ready again within 5 s, integrity_check ok, every finished run
# still there, the killed run marked interrupted, no run left "running".
. "$(dirname "$0")/../api/lib.sh"
KILLS=${KILLS:-50}
[ -n "${SANITIZED:-}" ] && KILLS=${KILLS_SANITIZED:-15}
seed_store
DB="$VAR/pwtune.db"
# The ids of the finished runs, in order (group_concat follows the order of
# the subquery's rows; an ORDER BY beside it orders nothing).
done_runs() { sqlite3 "$DB" "SELECT group_concat(id) FROM (SELECT id FROM runs WHERE status = 'done' ORDER BY id)"; }
before=$(done_runs)
slow=0 lost=0 notint=0 integrity=0 running=0 maxms=0
for i in $(seq "$KILLS"); do
	# Small points (32 MiB at most), no verification: the run spends its
	# time measuring, writing points and finishing.
	start_daemon PWTUNED_MEMORY_MAX=32MiB PWTUNED_VERIFY_TARGETS=none --
	req POST /v1/runs -H "Authorization: Bearer $(TOKEN)" -H "Content-Type: application/json"
	id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('id', 0))" "$TMP/body" 2>/dev/null)
	# A random moment: 0 to 1.5 s into the run.
	sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.3f", rand() * 1.5 }')"
	kill -9 "$PID"
	wait "$PID" 2>/dev/null
	PID=""
	now=$(done_runs)
	# The run may have finished before the kill: then it is one more.
	case ",$now," in *",${before//,/,*,},"*) ;; *) [ -n "$before" ] && lost=$((lost + 1)) ;; esac
	[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || integrity=$((integrity + 1))
	t0=$(date +%s%N)
	start_daemon PWTUNED_VERIFY_TARGETS=none --
	ready=""
	for _ in $(seq 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ] && { ready=1; break; }
		sleep 0.05
	done
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ -n "$ready" ] && [ "$ms" -le 5000 ] || slow=$((slow + 1))
	[ "$ms" -gt "$maxms" ] && maxms=$ms
	st=$(sqlite3 "$DB" "SELECT status FROM runs WHERE id = ${id:-0}")
	[ "$st" = interrupted ] || [ "$st" = done ] || notint=$((notint + 1))
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE status IN ('running', 'queued')")" = 0 ] || running=$((running + 1))
	stop_daemon
	before=$(done_runs)
done
echo "  $KILLS kills; runs now: $(sqlite3 "$DB" "SELECT status || ' ' || count(*) FROM runs GROUP BY status" | tr '\n' ',')"
[ $integrity -eq 0 ] && ok "integrity_check ok after each of $KILLS kills" || bad "integrity failed $integrity times"
[ $lost -eq 0 ] && ok "no finished run lost" || bad "finished runs lost $lost times"
[ $notint -eq 0 ] && ok "each killed run marked interrupted (or done, when it had ended)" || bad "$notint runs not marked"
[ $running -eq 0 ] && ok "no run left running or queued after a restart" || bad "$running restarts left a run running"
[ $slow -eq 0 ] && ok "ready again within 5 s every time (at most $maxms ms)" || bad "$slow restarts slower than 5 s"
finish
