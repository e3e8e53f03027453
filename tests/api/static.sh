#!/usr/bin/env bash
# The dashboard's files (RELIABILITY B10, S8): / and /static/NAME from the
# built-in copy or --web-root, a strict CSP and nosniff on each, and no
# path that leaves web/.
. "$(dirname "$0")/lib.sh"
seed_store
start_daemon
expect_http 200 "GET /" GET /
expect_body "index: HTML with CSP and nosniff" '
    h["content-type"].startswith("text/html") and "script-src '"'"'self'"'"'" in h["content-security-policy"]
    and "unsafe-inline" not in h["content-security-policy"] and h["x-content-type-options"] == "nosniff"'
grep -q '<script src="/static/app.js" defer></script>' "$TMP/body" && ok "index loads app.js, no inline script" || bad "index script"
expect_http 200 "app.js" GET /static/app.js
expect_body "app.js as JavaScript" 'h["content-type"].startswith("text/javascript")'
cp "$TMP/body" "$TMP/app.js"
node --check "$TMP/app.js" && ok "app.js parses" || bad "app.js does not parse"
expect_http 200 "style.css" GET /static/style.css
for p in "/static/..%2f..%2fetc%2fpasswd" "/static/%2e%2e" "/static/.." "/static/.hidden" \
	"/static/../../../etc/passwd" "/static/%2e%2e%2fdb%2fdb.c" "/../../etc/passwd" \
	"/static/app.js/.." "/static/" "/static/a%00b"; do
	req GET "$p" --path-as-is
	st=$(cat "$TMP/status")
	if [ "$st" = 404 ] || [ "$st" = 400 ]; then ok "refused: $p ($st)"; else bad "$p: $st"; fi
	! grep -q "root:" "$TMP/body" || bad "$p leaked a file"
done
stop_daemon

# --web-root: files from a directory; a symlink out of it is refused.
mkdir "$TMP/web"
echo '<!doctype html><title>dev</title>' >"$TMP/web/index.html"
ln -s /etc/passwd "$TMP/web/passwd.html"
start_daemon -- --web-root "$TMP/web"
expect_http 200 "web_root: index from disk" GET /
grep -q '<title>dev</title>' "$TMP/body" && ok "web_root: its own file" || bad "web_root: wrong file"
expect_http 404 "web_root: a symlink out is refused" GET /static/passwd.html
expect_http 404 "web_root: app.js is not built in there" GET /static/app.js
stop_daemon
finish
