#!/usr/bin/env bash
# Quick start with curl: sign up (or sign in when the account already exists), mint a key that
# may only verify (scope verify:read), verify one claim and show its X-Workflow-Id. Safe to run
# again and again. Needs bash, curl and sed; no jq.
#   SVC_URL (default http://127.0.0.1:8000), SVC_EMAIL, SVC_PASSWORD (at least 12 characters).
# Prints `export SVC_API_KEY=...` last, so `eval "$(examples/quickstart.sh | tail -1)"` keeps the key.
set -euo pipefail
SVC_URL=${SVC_URL:-http://127.0.0.1:8000}
SVC_EMAIL=${SVC_EMAIL:-me@example.com}
SVC_PASSWORD=${SVC_PASSWORD:-a long passphrase 42}

# The first value of a string field in a JSON text (tokens, keys and statuses carry no quotes).
field() { { grep -o "\"$1\":\"[^\"]*\"" || true; } | head -n 1 | cut -d '"' -f 4; }
# POST JSON; prints the body, then the status on the last line.
post() { curl -sS -w '\n%{http_code}' "$SVC_URL$1" -H 'content-type: application/json' "${@:3}" -d "$2"; }

creds="\"email\":\"$SVC_EMAIL\",\"password\":\"$SVC_PASSWORD\""
out=$(post /auth/signup "{$creds,\"organization_name\":\"Quick start\"}")
status=${out##*$'\n'}
if [ "$status" = 409 ]; then
  echo "signup: $SVC_EMAIL already exists, signing in" >&2
  out=$(post /auth/signin "{$creds}")
  status=${out##*$'\n'}
fi
if [ "$status" != 200 ]; then
  echo "could not sign up or sign in (HTTP $status): ${out%$'\n'*}" >&2
  exit 1
fi
token=$(printf '%s' "${out%$'\n'*}" | field access_token)

out=$(post /auth/api-keys '{"name":"quick start","scopes":["verify:read"]}' -H "authorization: Bearer $token")
if [ "${out##*$'\n'}" != 200 ]; then
  echo "could not create a key: ${out%$'\n'*}" >&2
  exit 1
fi
key=$(printf '%s' "${out%$'\n'*}" | field key)

headers=$(mktemp)
trap 'rm -f "$headers"' EXIT
body=$(curl -sS -D "$headers" "$SVC_URL/verify/math" -H "x-api-key: $key" -H 'content-type: application/json' \
  -d '{"expression":"(x+1)^2 = x^2 + 2*x + 1"}')
echo "X-Workflow-Id: $(sed -n 's/^[Xx]-[Ww]orkflow-[Ii]d: *\([^[:space:]]*\).*/\1/p' "$headers")"
echo "status: $(printf '%s' "$body" | field status)"
echo "$body"
echo "export SVC_API_KEY=$key"
