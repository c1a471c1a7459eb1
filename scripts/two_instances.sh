#!/usr/bin/env bash
# Two schooldata instances on loopback ports, sharing one PostgreSQL and one Redis, the way N
# instances share them behind a load balancer (docs/deploy.md). Checks that:
#   1. both become ready (database, data, Redis rate windows);
#   2. both serve the same data (byte-identical public answers, identical ETags);
#   3. they share limits: the monthly quota (PostgreSQL) and the per-second rate window (Redis)
#      count a key's calls on either instance.
#
# Usage: scripts/two_instances.sh        (from the repository root, after `pip install -e .`)
# Environment (defaults in brackets):
#   SCHOOLDATA_DATABASE_URL [postgresql+psycopg://postgres@127.0.0.1:5432/test]
#   SCHOOLDATA_REDIS_URL    [redis://127.0.0.1:6379/0]
#   PORT_A, PORT_B          [18181, 18182]    WORKERS [1]    SCHOOLDATA [.venv/bin/schooldata]
#   IMPORT_SAMPLE           [1]   0: keep and check the data already in the database
# The database is migrated and, unless IMPORT_SAMPLE=0, the bundled sample dataset imported
# into it (replacing the data it served). Each run adds one organisation and key
# (two-instances-<time>-<pid>). Exit 0 when every check passes.
set -euo pipefail

cd "$(dirname "$0")/.."
SCHOOLDATA=${SCHOOLDATA:-.venv/bin/schooldata}
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$SCHOOLDATA" ] || SCHOOLDATA=$(command -v schooldata)
[ -x "$PYTHON" ] || PYTHON=$(command -v python3)

export SCHOOLDATA_DATABASE_URL=${SCHOOLDATA_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test}
export SCHOOLDATA_REDIS_URL=${SCHOOLDATA_REDIS_URL:-redis://127.0.0.1:6379/0}
# One secret for every instance: stored key hashes depend on it.
export SCHOOLDATA_KEY_SECRET=${SCHOOLDATA_KEY_SECRET:-two-instances-check-secret-not-for-production}
export SCHOOLDATA_LOG_FORMAT=${SCHOOLDATA_LOG_FORMAT:-json}
PORT_A=${PORT_A:-18181}
PORT_B=${PORT_B:-18182}
WORKERS=${WORKERS:-1}

WORK=$(mktemp -d -t schooldata-two-instances.XXXXXX)
export SCHOOLDATA_HOME="$WORK/home"
unset SCHOOLDATA_CONFIG SCHOOLDATA_BASE_URL SCHOOLDATA_PLANS_FILE
PIDS=()

say() { printf '%s\n' "two_instances: $*" >&2; }

cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
    say "FAILED: $*"
    for log in "$WORK"/instance-*.log; do
        [ -f "$log" ] && { say "--- last lines of $log"; tail -n 20 "$log" >&2; }
    done
    exit 1
}

say "database ${SCHOOLDATA_DATABASE_URL%%@*}@…, redis $SCHOOLDATA_REDIS_URL"
say "migrating the schema"
"$SCHOOLDATA" db upgrade >/dev/null || fail "schooldata db upgrade"
if [ "${IMPORT_SAMPLE:-1}" = "1" ]; then
    say "importing the bundled sample dataset"
    "$SCHOOLDATA" import sample >"$WORK/import.log" 2>&1 || { cat "$WORK/import.log" >&2; fail "import"; }
else
    say "IMPORT_SAMPLE=0: checking the data already in the database"
fi

# A key on the developer plan (5 requests per second, 1,000 per month), for this run only.
ORG="two-instances-$(date +%s)-$$"
KEY=$("$SCHOOLDATA" keys create --org "$ORG" --name two-instances --plan developer --json 2>/dev/null \
    | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["key"])') || fail "keys create"

for name in A B; do
    port_var="PORT_$name"
    port=${!port_var}
    "$SCHOOLDATA" serve --host 127.0.0.1 --port "$port" --workers "$WORKERS" \
        >"$WORK/instance-$name.log" 2>&1 &
    PIDS+=("$!")
    say "instance $name on 127.0.0.1:$port (pid $!)"
done

# The checks, in Python for exact HTTP handling; the key travels in the environment only.
export TWO_INSTANCES_KEY="$KEY"
"$PYTHON" - "$PORT_A" "$PORT_B" <<'PY' || fail "see above"
import json
import os
import sys
import time
import urllib.error
import urllib.request

A, B = (f"http://127.0.0.1:{port}" for port in sys.argv[1:3])
KEY = os.environ["TWO_INSTANCES_KEY"]


def get(url: str, keyed: bool = False) -> tuple[int, dict[str, str], bytes]:
    headers = {"Accept-Encoding": "identity"}
    if keyed:
        headers["Authorization"] = f"Bearer {KEY}"
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def check(condition: bool, message: str) -> None:
    if not condition:
        print(f"two_instances: FAILED: {message}", file=sys.stderr)
        sys.exit(1)
    print(f"two_instances: ok - {message}", file=sys.stderr)


# 1. Both ready.
deadline = time.monotonic() + 90
for base in (A, B):
    while True:
        try:
            status, _, body = get(f"{base}/ready")
        except OSError:
            status, body = 0, b""
        if status == 200:
            checks = json.loads(body)["checks"]
            break
        if time.monotonic() > deadline:
            check(False, f"{base}/ready within 90 s (last: {status} {body[:300]!r})")
        time.sleep(0.5)
    check(checks["dataset"]["status"] == "ok", f"{base} has the register loaded")
    check(checks["metering"]["backend"] == "redis", f"{base} counts rate windows in Redis")
    check(checks["metering"]["status"] == "ok", f"{base} reaches Redis")

# 2. The same data.
for path in (
    "/api/v1/search?query=school&limit=25",
    "/api/v1/search?postcode=SW1A%201AA&limit=25",
    "/api/v1/openapi.json",
):
    status_a, headers_a, body_a = get(A + path)
    status_b, headers_b, body_b = get(B + path)
    check(status_a == status_b == 200, f"{path} answers 200 on both")
    # Links are built from each request's host: compare with the port taken out.
    same = body_a.replace(A.encode(), b"") == body_b.replace(B.encode(), b"")
    check(same, f"{path}: the same answer from both instances")
    if path.endswith(".json"):
        check(headers_a.get("etag") == headers_b.get("etag"), f"{path}: the same ETag")
_, _, found = get(A + "/api/v1/search?query=school&limit=1")
urn = json.loads(found)["results"][0]["urn"]
_, _, one_a = get(f"{A}/api/v1/schools/{urn:06d}", keyed=True)
_, _, one_b = get(f"{B}/api/v1/schools/{urn:06d}", keyed=True)
data_a = json.loads(one_a.replace(A.encode(), b""))["data"]  # meta.request_id differs
data_b = json.loads(one_b.replace(B.encode(), b""))["data"]
check(data_a == data_b, f"the commercial profile of {urn:06d} is the same on both")

# 3a. One monthly quota (PostgreSQL): each call on either instance uses it up.
remaining = []
for base in (A, B, A, B):
    status, headers, _ = get(f"{base}/api/v1/meta", keyed=True)
    if status == 429:  # a second boundary fell badly with the calls above: wait one out
        time.sleep(1.1)
        status, headers, _ = get(f"{base}/api/v1/meta", keyed=True)
    check(status == 200, f"keyed call on {base} answers 200")
    remaining.append(int(headers["x-quota-remaining"]))
steps = [a - b for a, b in zip(remaining, remaining[1:])]
check(steps == [1, 1, 1], f"the quota counts across instances: remaining {remaining}")

# 3b. One rate window (Redis): 5 per second for the key, whichever instance answers.
for attempt in range(5):
    time.sleep(1.0 - time.time() % 1.0 + 0.02)  # the start of a fresh second
    started = int(time.time())
    statuses = [get(f"{base}/api/v1/meta", keyed=True)[0] for base in (A, B) * 4]
    if int(time.time()) == started:  # all eight calls fell in one window
        break
else:
    check(False, "eight calls within one second (the machine is too slow to tell)")
check(
    statuses.count(200) == 5 and statuses.count(429) == 3,
    f"the rate limit is shared: 8 calls alternating A/B in one second -> {statuses}",
)
print("two_instances: every check passed", file=sys.stderr)
PY
say "done"
