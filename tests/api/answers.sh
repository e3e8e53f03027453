#!/usr/bin/env bash
# The answer cache under concurrent distinct questions (every answer is
# the one to its own question), and ETags that follow the body across a
# restart on a new run (an If-None-Match from before gets the new answer).
. "$(dirname "$0")/lib.sh"
seed_store

# Eight HTTP threads, five clients asking 400 distinct small questions
# (they keep the 64 slots changing hands), one asking target_ms=250.
start_daemon PWTUNED_THREADS=8 --
if python3 "$SRC/tests/api/answers.py" "$PORT" "${ANSWER_SECONDS:-8}" 6 \
	>"$TMP/answers" 2>&1; then
	ok "concurrent distinct questions: $(head -1 "$TMP/answers")"
else
	bad "concurrent distinct questions:"
	sed 's/^/  /' "$TMP/answers"
fi

Q="/v1/recommendation?target_ms=250"
expect_http 200 "the answer on run 1" GET "$Q"
cp "$TMP/body" "$TMP/body1"
etag1=$(sed -n 's/^ETag: //Ip' "$TMP/headers" | tr -d '\r')
expect_http 304 "the same answer again: 304" GET "$Q" -H "If-None-Match: $etag1"
stop_daemon

# A restart on the same run: the same body, the same ETag.
start_daemon
expect_http 304 "restart on the same run: still 304" GET "$Q" -H "If-None-Match: $etag1"
stop_daemon

# A second run (another grid), then a restart: a new body, a new ETag.
"$PWTUNE" bench --m 8MiB,24MiB,48MiB --t 1,2 --backend libsodium \
	--repeats 2 --db "$VAR/pwtune.db" --no-json -q >/dev/null 2>&1 ||
	bad "cannot add a second run"
start_daemon
expect_http 200 "restart on run 2: the old ETag gets the new answer" GET "$Q" -H "If-None-Match: $etag1"
etag2=$(sed -n 's/^ETag: //Ip' "$TMP/headers" | tr -d '\r')
expect_body "the new answer is run 2's" 'j["model"]["run_id"] == 2'
if cmp -s "$TMP/body" "$TMP/body1"; then
	bad "run 2 answered the same body as run 1"
elif [ -n "$etag2" ] && [ "$etag2" != "$etag1" ]; then
	ok "a new body, a new ETag ($etag1 -> $etag2)"
else
	bad "a new body under the same ETag $etag1 ($etag2)"
fi
expect_http 304 "the new ETag: 304" GET "$Q" -H "If-None-Match: $etag2"
stop_daemon
finish
