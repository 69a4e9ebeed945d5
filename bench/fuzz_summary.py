"""Figures of a schemathesis run (bench/fuzz-openapi.sh): reads the HAR of every request the
run sent and the OpenAPI document it was generated from, and prints the number of requests,
the count per status, the responses of 500 (and any other 5xx), the responses whose JSON body
violates the schema declared for their operation and status, and the requests per operation.
Each response is checked here (not only schemathesis' de-duplicated failures), so "0 schema
violations" means every recorded response matched. Exit status 1 on any 5xx or violation.

    python bench/fuzz_summary.py <openapi.json> <run.har>… [<schemathesis json report>…]
"""
import collections
import json
import re
import sys

import jsonschema_rs  # schemathesis' own validator, in the same venv

doc = json.load(open(sys.argv[1]))
hars = {f: json.load(open(f))["log"]["entries"] for f in sys.argv[2:] if f.endswith(".har")}
entries = [e for es in hars.values() for e in es]
reports = [json.load(open(f)) for f in sys.argv[2:] if f.endswith(".json")]


# Operation matchers: most specific first (literal segments beat {params}).
ops = []
for path, item in doc["paths"].items():
    for method, op in item.items():
        rx = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$"
        ops.append((path.count("{"), -len(path), method.upper(), re.compile(rx), path, op))
ops.sort(key=lambda o: (o[0], o[1]))


def operation_of(method, url):
    path = re.sub(r"^https?://[^/]+", "", url).split("?", 1)[0]
    for _, _, m, rx, template, op in ops:
        if m == method and rx.match(path):
            return template, op
    return None, None


validators = {}
by_status = collections.Counter()
by_op = collections.Counter()
server_errors = []
violations = []
for e in entries:
    method = e["request"]["method"]
    status = e["response"]["status"]
    by_status[status] += 1
    template, op = operation_of(method, e["request"]["url"])
    name = op["operationId"] if op else f"{method} (no such operation)"
    by_op[name] += 1
    if status >= 500:
        server_errors.append((name, status, e["request"]["url"], e["response"]["content"].get("text", "")[:300]))
    if not op:
        continue
    declared = op["responses"].get(str(status))
    if not declared or "content" not in declared:
        continue
    ctype = (next((h["value"] for h in e["response"]["headers"] if h["name"].lower() == "content-type"), "") or "").split(";")[0].strip()
    if "application/json" not in declared["content"] or ctype != "application/json":
        continue
    key = (template, method.lower(), str(status))
    if key not in validators:
        # The components ride along in the root so `#/components/schemas/...` references resolve.
        root = dict(declared["content"]["application/json"]["schema"], components=doc.get("components", {}))
        validators[key] = jsonschema_rs.Draft202012Validator(root)
    try:
        body = json.loads(e["response"]["content"].get("text") or "null")
    except ValueError:
        violations.append((name, status, "body is not JSON", e["request"]["url"]))
        continue
    err = next(iter(validators[key].iter_errors(body)), None)
    if err is not None:
        where = "/".join(map(str, err.instance_path)) or "$"
        violations.append((name, status, f"{where}: {err.message[:200]}", e["request"]["url"]))

print(f"[fuzz] requests: {len(entries)}")
print("[fuzz] by status: " + ", ".join(f"{k}: {v}" for k, v in sorted(by_status.items())))
print(f"[fuzz] responses of 500: {by_status.get(500, 0)} (any 5xx: {len(server_errors)})")
print(f"[fuzz] schema violations: {len(violations)} (responses checked against the schema of their operation and status)")
for report in reports:
    st = {f["code"]: f["count"] for f in report.get("failures", [])}
    errors = len(report.get("errors", []))
    print(f"[fuzz] schemathesis: {report['test_cases']['generated']} test cases generated, unique failures {st or 0}, errors {errors}, running time {report['running_time']:.0f} s")
# A request made with a credential the run itself revoked tests nothing: count them per pass
# (the key pass, last, may revoke the key it runs with).
for f, es in hars.items():
    revoked = sum(1 for e in es if "revoked, inactive or expired" in (e["response"]["content"].get("text") or ""))
    print(f"[fuzz] {f.rsplit('/', 1)[-1]}: {len(es)} requests, {revoked} answered 'API key is revoked'")
print(f"[fuzz] operations exercised: {sum(1 for k in by_op if not k.endswith('(no such operation)'))} of {sum(len(v) for v in doc['paths'].values())}")
print("[fuzz] requests per operation:")
for name, n in sorted(by_op.items()):
    print(f"[fuzz]   {name:32s} {n}")
for name, status, url, text in server_errors[:20]:
    print(f"[fuzz] 5xx {status} {name} {url}\n         {text}")
for name, status, msg, url in violations[:20]:
    print(f"[fuzz] VIOLATION {name} {status} {msg}\n         {url}")
sys.exit(1 if server_errors or violations else 0)
