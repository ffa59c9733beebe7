#!/usr/bin/env bash
# Installs the packages the way a user does today, from packed tarballs, outside the workspace:
#   1. packs every public package (`pnpm pack`: workspace:* ranges become versions) and checks each
#      tarball ships what its exports and source maps point at (scripts/check-tarballs.mjs);
#   2. `npm install --global` of the tarballs into a temporary prefix, then `svc geo 8.8.8.8` and
#      a 100-record `svc batch run` (the SQLite store) from there;
#   3. `npm install` of the tarballs into a temporary app, which imports every package and
#      typechecks against their published types.
# The @svc packages come only from the tarballs (enforced below); third-party dependencies from
# the npm registry or its local cache. Run after `pnpm install`; it builds first. 301 s when timed
# (2026-11-27, already built, shared 2-core machine at load average 10 to 13, skipLibCheck false;
# 61 s at load 4 to 5 before, with skipLibCheck true).
#
# better-sqlite3's install script would compile SQLite (about 90 s on 2 cores when timed on
# 2026-11-23, load not recorded: this machine cannot download the prebuilt binaries); the
# install runs without scripts and reuses the binary the
# workspace's install built for the same version and Node. PACK_SMOKE_NATIVE_BUILD=1 compiles
# it the way a user's install does.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

work=$(mktemp -d "${TMPDIR:-/tmp}/svc-pack-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { printf -- '-- %s\n' "$*"; }
fail() {
  printf 'pack-smoke: %s\n' "$*" >&2
  exit 1
}
pnpm() { npx -y pnpm@10 "$@"; }

step "build and pack"
node node_modules/typescript/bin/tsc --build
pnpm --filter @svc/dashboard build >"$work/dashboard-build.log" 2>&1 ||
  { cat "$work/dashboard-build.log" >&2; fail "the dashboard's build failed"; }
mapfile -t public < <(node -e '
  const { readdirSync, readFileSync } = require("node:fs");
  for (const dir of readdirSync("packages")) {
    const manifest = JSON.parse(readFileSync(`packages/${dir}/package.json`, "utf8"));
    if (!manifest.private) console.log(`./packages/${dir}`);
  }')
filters=()
for dir in "${public[@]}"; do filters+=(--filter "$dir"); done
pnpm -r "${filters[@]}" pack --pack-destination "$work/tarballs" >"$work/pack.log" 2>&1 ||
  { cat "$work/pack.log" >&2; fail "pnpm pack failed"; }
tarballs=("$work"/tarballs/*.tgz)
[ "${#tarballs[@]}" -eq "${#public[@]}" ] || fail "expected ${#public[@]} tarballs, got ${#tarballs[@]}"
node scripts/check-tarballs.mjs "${tarballs[@]}"

# The same flags for both installs: third-party packages from the registry (its local cache when
# it can); the @svc scope's registry is a closed port on loopback, so an @svc package that does
# not come from the tarballs fails the install instead of being fetched from the npm registry.
# (npm asks the registry about a tarball's @svc dependencies before it sees the sibling tarball
# that satisfies them; without retries that question fails at once and the tarball is used.)
npm_install() {
  local scripts=--ignore-scripts
  [ "${PACK_SMOKE_NATIVE_BUILD:-}" = 1 ] && scripts=
  npm install --prefer-offline --no-audit --no-fund --loglevel=error --fetch-retries=0 '--@svc:registry=http://127.0.0.1:9/' \
    $scripts "$@"
}

# Puts the workspace's built better-sqlite3 binary into an installed copy (see the top).
native_sqlite() {
  local installed=$1
  [ "${PACK_SMOKE_NATIVE_BUILD:-}" = 1 ] && return
  local ours
  ours=$(node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json", { paths: [process.argv[1]] }))' "$repo/packages/cli")
  local want have
  want=$(node -p "require('$installed/package.json').version")
  have=$(node -p "require('$ours/package.json').version")
  if [ "$want" = "$have" ] && [ -f "$ours/build/Release/better_sqlite3.node" ]; then
    mkdir -p "$installed/build/Release"
    cp "$ours/build/Release/better_sqlite3.node" "$installed/build/Release/"
  else
    step "building better-sqlite3 $want (the workspace has $have)"
    (cd "$installed" && npm run install --silent >/dev/null)
  fi
}

step "npm install --global (temporary prefix)"
prefix=$work/prefix
npm_install --global --prefix "$prefix" "${tarballs[@]}"
native_sqlite "$prefix/lib/node_modules/@svc/cli/node_modules/better-sqlite3"

# From an empty folder, with the temporary prefix first on PATH and its own data dir: nothing of
# the workspace can be found from there.
mkdir -p "$work/user"
cd "$work/user"
export PATH="$prefix/bin:$PATH" SVC_DATA_DIR="$work/user/svc-data"
unset NODE_PATH NODE_OPTIONS
[ "$(command -v svc)" = "$prefix/bin/svc" ] || fail "svc is not the installed one: $(command -v svc)"

step "svc geo 8.8.8.8"
svc geo 8.8.8.8 --json >geo.json 2>geo.err || { cat geo.err >&2; fail "svc geo failed"; }
node -e '
  const [result] = [JSON.parse(require("node:fs").readFileSync("geo.json", "utf8"))].flat();
  const text = JSON.stringify(result);
  if (!text.includes("\"US\"") || !text.includes("15169")) {
    console.error("unexpected svc geo output:", text);
    process.exit(1);
  }'

step "svc batch run (100 records, SQLite store)"
for i in $(seq 1 100); do echo "8.8.$((i / 256)).$((i % 256))"; done >ips.txt
svc batch run --type geo_ip --file ips.txt --out results.csv --db "$work/user/jobs.db" >batch.out 2>batch.err ||
  { cat batch.out batch.err >&2; fail "svc batch run failed"; }
rows=$(($(wc -l <results.csv) - 1))
[ "$rows" -eq 100 ] || { head -n 5 results.csv >&2; fail "results.csv has $rows rows, not 100"; }

step "svc serve serves /dashboard (the page is in @svc/server's tarball)"
# Every tarball is a global package here (as the root README installs them), so the CLI resolves
# the top-level @svc/server, which cannot see better-sqlite3 (a dependency of the CLI, nested
# under it): svc serve hands the server the CLI's copy (serve's sqliteDriver), which this checks.
svc serve --port 0 >serve.out 2>serve.err &
serve_pid=$!
url=
for _ in $(seq 1 120); do
  url=$(sed -n 's/^svc serve: listening on \([^ ]*\) .*/\1/p' serve.out | head -n 1)
  [ -n "$url" ] && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.5
done
[ -n "$url" ] || { kill "$serve_pid" 2>/dev/null || true; cat serve.out serve.err >&2; fail "svc serve did not start"; }
page=$(node -e 'fetch(process.argv[1]).then(async (r) => console.log(r.status, await r.text()))' "$url/dashboard/" 2>&1) || true
kill "$serve_pid" 2>/dev/null || true
wait "$serve_pid" || true
case "$page" in
  "200 "*'<div id="app">'*) ;;
  *)
    cat serve.err >&2
    fail "GET $url/dashboard/ did not answer the dashboard: ${page:0:300}"
    ;;
esac

step "npm install into an app"
app=$work/app
mkdir -p "$app"
cd "$app"
printf '{ "name": "app", "private": true, "type": "module" }\n' >package.json
npm_install "${tarballs[@]}"
native_sqlite "$app/node_modules/better-sqlite3"
names=()
for tarball in "${tarballs[@]}"; do
  # The package and each subpath it exports (@svc/server/plugins, @svc/core/job-types, ...).
  while IFS= read -r specifier; do names+=("$specifier"); done < <(tar -xzOf "$tarball" package/package.json |
    node -e 'const m = JSON.parse(require("fs").readFileSync(0, "utf8")); for (const key of Object.keys(m.exports ?? { ".": 0 })) console.log(key === "." ? m.name : m.name + key.slice(1))')
done
printf '%s\n' "${names[@]}" | awk '{ printf "import * as package%d from \"%s\";\n", NR, $0 }' >check.ts
# Valid JavaScript and TypeScript at once: node runs it, tsc checks it against the published types.
cat >>check.ts <<'TS'
import { createSqliteStore } from '@svc/batch-runner';
import { isPublicIp } from '@svc/ip-address';
import { signPayload } from '@svc/webhooks';

const store = await createSqliteStore({ path: ':memory:' });
await store.close();
console.log(JSON.stringify({ public: isPublicIp('8.8.8.8'), signed: signPayload('{}', 'whsec_test', { timestamp: 1 }).length > 0 }));
TS
cp check.ts check.mjs
node check.mjs >check.out || fail "the app could not import the packages"
grep -qx '{"public":true,"signed":true}' check.out || fail "unexpected output from the app: $(cat check.out)"
printf '{ "compilerOptions": { "module": "NodeNext", "moduleResolution": "NodeNext", "target": "ES2023", "strict": true, "noEmit": true, "skipLibCheck": false }, "files": ["check.ts"] }\n' >tsconfig.json
# The workspace's TypeScript and @types/node, as an app would have its own. skipLibCheck false:
# every published .d.ts is checked, and none may name an optional peer's types (pg, better-sqlite3,
# ioredis: an app that never installs them must typecheck; scripts/check-tarballs.mjs names any
# .d.ts that imports one).
mkdir -p node_modules/@types
ln -s "$repo/node_modules/@types/node" node_modules/@types/node
node "$repo/node_modules/typescript/bin/tsc" -p tsconfig.json ||
  fail "the packages' published types do not typecheck in an app"

echo "pack-smoke: ok (${#tarballs[@]} tarballs; svc geo, a 100-record svc batch run, svc serve's /dashboard and an app's imports and types)"
