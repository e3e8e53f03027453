#!/usr/bin/env bash
# GET /v1/openapi.json, checked against real responses: every response the
# daemon gives below must be declared (path, method, status) and its body
# must match the declared schema (types, required members, enums, items).
. "$(dirname "$0")/lib.sh"
seed_store
start_daemon
expect_http 200 "openapi.json" GET /v1/openapi.json
cp "$TMP/body" "$TMP/openapi.json"
expect_body "OpenAPI 3.1" 'j["openapi"] == "3.1.0" and "/v1/recommendation" in j["paths"]'
T=$(TOKEN)
J=(-H "Content-Type: application/json")
: >"$TMP/cases"
case_() {	# case_ METHOD DOCPATH URLPATH [curl options]: record a real exchange
	local m=$1 doc=$2 url=$3
	shift 3
	req "$m" "$url" "$@"
	python3 - "$TMP/cases" "$m" "$doc" "$(cat "$TMP/status")" "$TMP/body" "$TMP/headers" <<'PY'
import json, sys
cases, m, doc, st, body, headers = sys.argv[1:]
ct = ""
for line in open(headers).read().splitlines():
    if line.lower().startswith("content-type:"):
        ct = line.split(":", 1)[1].strip().split(";")[0]
with open(cases, "a") as f:
    f.write(json.dumps({"method": m.lower(), "path": doc, "status": st, "ctype": ct,
                        "body": open(body).read()}) + "\n")
PY
}
case_ GET /healthz /healthz
case_ GET /readyz /readyz
case_ GET /metrics /metrics
case_ GET /v1/recommendation "/v1/recommendation?target_ms=250"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=1"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=abc"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=250&percentile=90"
case_ GET /v1/recommendation "/v1/recommendation?percentile=90&floor=nist"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=-5"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=250&scope=fleet"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=250&scope=group"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=250&stack=php-sodium"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=250&stack=php"
case_ GET /v1/recommendation "/v1/recommendation?target_ms=250&stack=cobol"
case_ POST /v1/observations /v1/observations "${J[@]}" -H "Authorization: Bearer $T" --data-binary '{"stack": "php-8.2-libargon2", "m_kib": 19456, "t": 2, "samples_ms": [41.5, 40]}'
case_ GET /v1/recommendation "/v1/recommendation?target_ms=250&stack=php-8.2-libargon2"
case_ POST /v1/observations /v1/observations "${J[@]}" -H "Authorization: Bearer $T" --data-binary '{"stack": "php 8"}'
case_ POST /v1/observations /v1/observations "${J[@]}" --data-binary '{}'
case_ GET /v1/observations /v1/observations
case_ GET /v1/observations "/v1/observations?stack=a%20b"
case_ POST /v1/check /v1/check "${J[@]}" --data-binary '{"encoded": "$argon2id$v=19$m=65536,t=3,p=1$c29tZXNhbHRzb21lc2FsdA$CKGe5/bX9YnCq2rxjW5yQXKxn31v1GKzhDCrMc6r6vA"}'
case_ POST /v1/check /v1/check "${J[@]}" --data-binary '{"encoded": 1}'
case_ POST /v1/check /v1/check "${J[@]}" --data-binary '{"encoded": "$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234"}'
case_ POST /v1/check /v1/check --data-binary '{}' -H "Content-Type: text/plain"
case_ GET /v1/presets /v1/presets
case_ GET /v1/hosts /v1/hosts
hid=$(python3 -c "import json; print(json.load(open('$TMP/body'))['hosts'][0]['id'])")
case_ GET "/v1/hosts/{id}" "/v1/hosts/$hid"
case_ GET "/v1/hosts/{id}" /v1/hosts/ffffffffffffffffffffffffffffffff
case_ GET /v1/model /v1/model
case_ GET /v1/runs /v1/runs
case_ GET "/v1/runs/{id}" /v1/runs/1
case_ GET "/v1/runs/{id}" /v1/runs/77
case_ POST /v1/runs /v1/runs "${J[@]}" --data-binary '{}'
case_ POST /v1/runs /v1/runs "${J[@]}" --data-binary '{"profile": "quick"}' -H "Authorization: Bearer $T"
case_ GET "/v1/runs/{id}" /v1/runs/2
case_ POST /v1/runs /v1/runs "${J[@]}" -H "Authorization: Bearer $T"
case_ DELETE "/v1/runs/{id}" /v1/runs/2 -H "Authorization: Bearer $T"
case_ DELETE "/v1/runs/{id}" /v1/runs/1 -H "Authorization: Bearer $T"
case_ GET /v1/openapi.json /v1/openapi.json
python3 - "$TMP/openapi.json" "$TMP/cases" <<'PY' && ok "every response is declared and matches its schema" || bad "responses against the document"
import json, sys
doc = json.load(open(sys.argv[1]))
def deref(node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        node = doc
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
    return node
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
def check(v, schema, where, errors, parent=None):
    schema = deref(schema)
    t = schema.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        okt = False
        for one in ts:
            if one == "integer":
                okt |= isinstance(v, int) and not isinstance(v, bool)
            elif one == "number":
                okt |= isinstance(v, (int, float)) and not isinstance(v, bool)
            else:
                okt |= isinstance(v, TYPES[one])
        if not okt:
            errors.append("%s: %r is not %s" % (where, v, t)); return
    if "enum" in schema and v not in schema["enum"]:
        errors.append("%s: %r not in %s" % (where, v, schema["enum"]))
    if "const" in schema and v != schema["const"]:
        errors.append("%s: %r is not %r" % (where, v, schema["const"]))
    if "oneOf" in schema:
        fits = 0
        for alt in schema["oneOf"]:
            e = []
            check(v, alt, where, e)
            fits += not e
        if fits != 1:
            errors.append("%s: %r fits %d of oneOf, not 1" % (where, v, fits))
    if isinstance(v, dict):
        for r in schema.get("required", []):
            if r not in v:
                errors.append("%s: missing %s" % (where, r))
        for k, sub in schema.get("properties", {}).items():
            if k in v:
                check(v[k], sub, where + "." + k, errors, v)
            # A deprecated name comes with the one that replaces it.
            sub = deref(sub)
            if k in v and sub.get("deprecated"):
                new = sub.get("description", "").split("deprecated since 0.2.0: ")[-1]
                new = new.split(" ")[0].split(",")[0].split(".")[0]
                deprecated.add(where.split(" ")[1] + " " + k + " -> " + new)
                if new not in v and (parent is None or new not in parent):
                    errors.append("%s: deprecated %s without %s" % (where, k, new))
        if schema.get("additionalProperties") is False:
            for k in v:
                if k not in schema.get("properties", {}):
                    errors.append("%s: undeclared member %s" % (where, k))
    if isinstance(v, list) and "items" in schema:
        for i, item in enumerate(v):
            check(item, schema["items"], "%s[%d]" % (where, i), errors)
deprecated = set()
errors, n = [], 0
for line in open(sys.argv[2]):
    c = json.loads(line)
    op = doc["paths"].get(c["path"], {}).get(c["method"])
    if op is None:
        errors.append("%s %s: not in the document" % (c["method"], c["path"])); continue
    resp = op["responses"].get(c["status"])
    if resp is None:
        errors.append("%s %s -> %s: status not declared" % (c["method"], c["path"], c["status"])); continue
    resp = deref(resp)
    content = resp.get("content", {})
    if c["ctype"] not in content:
        errors.append("%s %s -> %s: content type %s not declared" % (c["method"], c["path"], c["status"], c["ctype"])); continue
    schema = content[c["ctype"]].get("schema", {})
    body = json.loads(c["body"]) if c["ctype"].endswith("json") else c["body"]
    check(body, schema, "%s %s %s" % (c["method"], c["path"], c["status"]), errors)
    # A problem's status is the response's.
    if c["ctype"] == "application/problem+json" and body.get("status") != int(c["status"]):
        errors.append("%s %s -> %s: problem says %r" % (c["method"], c["path"], c["status"], body.get("status")))
    n += 1
for e in errors:
    print("  " + e)
print("  %d responses checked; deprecated names seen with their replacement: %d" % (n, len(deprecated)))
assert not errors and n >= 20 and len(deprecated) >= 10
PY
stop_daemon
finish
