#!/usr/bin/env bash
# Builds the Dockerfile's image and runs it the way `docker run` and compose.yaml do, on a machine
# with no Docker daemon and no access to image registries (CI):
#   1. the base: NODE_IMAGE if given, else a local stand-in for node:20-bookworm-slim made from
#      Debian's packages and the npm registry (scripts/container-base.sh; reused for 7 days);
#   2. `buildah build --isolation chroot` of the Dockerfile with that base;
#   3. the image's own entrypoint and command (`svc serve`) started in a working container on
#      the host's network: GET /v2/health, one geo lookup with the live key and one sandbox
#      verification with the test key, all from outside with curl; then SIGTERM, which must end
#      it with exit status 0;
#   4. with DATABASE_URL and REDIS_URL (CI sets both), the compose.yaml topology: one
#      `serve --role api` and one `serve --role worker` from the image on a new database and
#      Redis prefix, and a batch job submitted to the API that the worker completes.
# Prints the time of each part and the image's size; any failure exits non-zero.
# SVC_CONTAINER_REUSE_IMAGE=1 skips the build when the image exists (to rerun the checks).
# Needs root, buildah, mmdebstrap (for the base), curl and, for step 4, psql. Measured from
# nothing on a shared 2-core machine under a load average of about 20: 12 minutes, nearly all
# of it the base (4 min) and the build (7 min); with the base made, 50 s for the checks alone.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

image=${SVC_CONTAINER_IMAGE:-localhost/svc:smoke}
work=$(mktemp -d "${TMPDIR:-/tmp}/svc-container-smoke.XXXXXX")
started=$SECONDS
containers=()
pids=()
database=

step() { printf -- '-- %s\n' "$*"; }
fail() {
  printf 'container-smoke: %s\n' "$*" >&2
  exit 1
}
elapsed() { echo "$((SECONDS - $1)) s"; }

cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  local container
  for container in "${containers[@]}"; do buildah rm "$container" >/dev/null 2>&1 || true; done
  if [ -n "$database" ]; then
    psql "$DATABASE_URL" -q -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

for tool in buildah curl node; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed (apt-get install buildah mmdebstrap uidmap curl)"
done

free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

# ---- 1. base
t=$SECONDS
if [ -n "${NODE_IMAGE:-}" ]; then
  base=$NODE_IMAGE
  step "base: $base (NODE_IMAGE)"
else
  step "base: Debian bookworm + Node 20 (scripts/container-base.sh)"
  base=$(bash scripts/container-base.sh)
fi
base_seconds=$((SECONDS - t))
echo "base ready in ${base_seconds} s: $base"

# ---- 2. build
step "build: buildah build --isolation chroot (Dockerfile, NODE_IMAGE=$base)"
build_args=(--isolation chroot --format docker --pull=false --no-cache --force-rm --build-arg "NODE_IMAGE=$base" -t "$image")
# The packages the workspace's install already put in pnpm's store on this machine are lent to
# the build's `pnpm fetch` (it downloads only what is missing); without a store it downloads all.
store=$(cd "$repo" && npx -y pnpm@10 store path 2>/dev/null || true)
if [ -n "$store" ] && [ -d "$store" ]; then build_args+=(-v "$(dirname "$store"):/pnpm/store"); fi
# Behind a TLS-intercepting proxy the host trusts through its CA bundle, npm in the build must
# trust the same bundle (the runtime image does not keep it).
ca_bundle=${SVC_CONTAINER_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
if [ -f "$ca_bundle" ]; then
  build_args+=(-v "$ca_bundle:/etc/ssl/svc-build-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/etc/ssl/svc-build-ca.crt)
fi
t=$SECONDS
if [ "${SVC_CONTAINER_REUSE_IMAGE:-}" = 1 ] && buildah inspect --type image "$image" >/dev/null 2>&1; then
  echo "reusing $image (SVC_CONTAINER_REUSE_IMAGE=1)"
else
  buildah build "${build_args[@]}" . >"$work/build.log" 2>&1 ||
    { tail -n 60 "$work/build.log" >&2; fail "the image did not build (log above)"; }
fi
build_seconds=$((SECONDS - t))
size=$(buildah images --format '{{.Size}}' "$image" | head -n 1)
echo "built $image in ${build_seconds} s; size $size"

# The image's configuration as Docker reads it (Docker format keeps HEALTHCHECK).
buildah inspect --type image "$image" >"$work/inspect.json"
node - "$work/inspect.json" >"$work/command" <<'EOF'
const config = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8')).Docker.config;
const problems = [];
if (!config.User || ['root', '0'].includes(config.User.split(':')[0])) problems.push(`runs as ${config.User || 'root'}`);
if (!config.Volumes || !('/data' in config.Volumes)) problems.push('no /data volume');
if (!config.Healthcheck || !config.Healthcheck.Test) problems.push('no HEALTHCHECK');
if (!(config.Env ?? []).includes('SVC_DATA_DIR=/data')) problems.push('SVC_DATA_DIR is not /data');
if (!config.Entrypoint || !config.Cmd) problems.push('no ENTRYPOINT/CMD');
if (problems.length > 0) {
  console.error(`container-smoke: the image's configuration: ${problems.join('; ')}`);
  process.exit(1);
}
// The entrypoint, then the command (what `docker run` runs), as two JSON lines.
console.log(JSON.stringify(config.Entrypoint));
console.log(JSON.stringify(config.Cmd));
EOF
args_of() { node -e 'for (const arg of JSON.parse(process.argv[1])) console.log(arg)' "$1"; }
mapfile -t entrypoint < <(args_of "$(sed -n 1p "$work/command")")
mapfile -t default_cmd < <(args_of "$(sed -n 2p "$work/command")")
command=("${entrypoint[@]}" "${default_cmd[@]}")
echo "config: user $(node -p "JSON.parse(require('fs').readFileSync('$work/inspect.json','utf8')).Docker.config.User"), volume /data, healthcheck, command: ${command[*]}"

# ---- 3. run: docker run <image>
# Starts a working container of the image and runs its entrypoint with ARGS (else the image's
# command) in the background on the host's network with the given environment, as `docker run`
# does: `run NAME ENV... -- [ARGS...]`. Its stdout and stderr go to $work/NAME.out and .err; its
# buildah pid to $work/NAME.pid.
run() {
  local name=$1
  shift
  local env=()
  while [ "$1" != -- ]; do
    env+=(-e "$1")
    shift
  done
  shift
  local container
  container=$(buildah from --pull=false --name "svc-smoke-$name-$$" "$image")
  containers+=("$container")
  local args=("$@")
  [ "${#args[@]}" -gt 0 ] || args=("${default_cmd[@]}")
  buildah run --isolation chroot --network host "${env[@]}" "$container" -- "${entrypoint[@]}" "${args[@]}" \
    >"$work/$name.out" 2>"$work/$name.err" &
  local pid=$!
  pids+=("$pid")
  echo "$pid" >"$work/$name.pid"
}

# The node process of a working container started by run(): a descendant of its buildah pid.
node_pid() {
  local pid
  pid=$(cat "$work/$1.pid")
  local todo=("$pid")
  while [ "${#todo[@]}" -gt 0 ]; do
    local current=${todo[0]}
    todo=("${todo[@]:1}")
    if [ "$(cat "/proc/$current/comm" 2>/dev/null)" = node ]; then
      echo "$current"
      return 0
    fi
    mapfile -t -O "${#todo[@]}" todo < <(pgrep -P "$current" || true)
  done
  return 1
}

# Waits up to $2 seconds for `GET $1/v2/health` to answer 200; prints the body.
wait_healthy() {
  local url=$1 limit=$2 name=$3
  local until=$((SECONDS + limit))
  while [ "$SECONDS" -lt "$until" ]; do
    if body=$(curl -sf --max-time 2 "$url/v2/health" 2>/dev/null); then
      echo "$body"
      return 0
    fi
    kill -0 "$(cat "$work/$name.pid")" 2>/dev/null ||
      { tail -n 30 "$work/$name.err" >&2; fail "$name exited before answering (its stderr above)"; }
    sleep 0.2
  done
  tail -n 30 "$work/$name.err" >&2
  fail "$name did not answer $url/v2/health within $limit s"
}

# Sends SIGTERM to the server (as `docker stop` does) and expects it to exit 0 within 30 s.
stop() {
  local name=$1 pid node
  pid=$(cat "$work/$name.pid")
  node=$(node_pid "$name") || fail "$name: no node process found"
  kill -TERM "$node"
  local until=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$until" ]; do sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && fail "$name did not stop within 30 s of SIGTERM"
  local status=0
  wait "$pid" || status=$?
  [ "$status" -eq 0 ] || { tail -n 20 "$work/$name.err" >&2; fail "$name exited with status $status after SIGTERM"; }
}

# `curl` that fails with the body shown when the status is not the expected one.
expect() {
  local want=$1
  shift
  local status
  status=$(curl -s -o "$work/body" -w '%{http_code}' --max-time 20 "$@") || fail "curl $* failed"
  [ "$status" = "$want" ] || fail "$* answered $status, expected $want: $(head -c 600 "$work/body")"
  cat "$work/body"
}

# A JSON body's field by path (`a.b`), or the empty string.
field() { node -e 'let v = JSON.parse(require("fs").readFileSync(0, "utf8")); for (const k of process.argv[1].split(".")) v = v?.[k]; console.log(v ?? "")' "$1"; }

step "run: the image's command (${command[*]}) on the host's network"
port=$(free_port)
t=$SECONDS
run single "SVC_PORT=$port" --
url=http://127.0.0.1:$port
health=$(wait_healthy "$url" 120 single)
healthy_seconds=$((SECONDS - t))
status=$(field status <<<"$health")
case "$status" in ok | degraded) ;; *) fail "GET /v2/health: status '$status': $health" ;; esac
echo "healthy ${healthy_seconds} s after start (status $status$([ "$status" = degraded ] && echo ", failing: $(field failing <<<"$health")"))"
if grep -q 'compiling the ASN data\|first use' "$work/single.err"; then
  fail "the first start prepared the geo data again (it should come prepared in the image): $(grep 'svc:' "$work/single.err")"
fi
uid=$(awk '/^Uid:/ { print $2 }' "/proc/$(node_pid single)/status")
[ "$uid" != 0 ] || fail "the server runs as root"
echo "runs as uid $uid"

live_key=$(grep -o 'sk_live_[0-9a-z]*' "$work/single.err" | head -n 1)
test_key=$(grep -o 'sk_test_[0-9a-z]*' "$work/single.err" | head -n 1)
[ -n "$live_key" ] && [ -n "$test_key" ] || fail "the first start printed no keys on stderr: $(cat "$work/single.err")"
! grep -q 'sk_live_' "$work/single.out" || fail "the live key appeared on stdout (the request log)"

geo=$(expect 200 -H "X-API-Key: $live_key" "$url/v2/geo/8.8.8.8")
echo "GET /v2/geo/8.8.8.8: $(head -c 300 <<<"$geo")"
[ "$(field ip <<<"$geo")" = 8.8.8.8 ] || fail "geo answered for another address: $geo"
[ "$(field country <<<"$geo")" = US ] || fail "geo did not place 8.8.8.8 in the US (DB-IP Lite does): $geo"

verify=$(expect 200 -H "X-API-Key: $test_key" -H 'Content-Type: application/json' \
  -d '{"email":"deliverable@example.com"}' "$url/v2/verify/email")
echo "POST /v2/verify/email (sandbox): $(head -c 300 <<<"$verify")"
[ "$(field state <<<"$verify")" = deliverable ] ||
  fail "the sandbox did not answer deliverable: $verify"

expect 200 "$url/dashboard/" >/dev/null
echo "GET /dashboard/: 200"

# `docker exec svc svc accounts list`: the CLI in the image finds the server's data dir.
accounts=$(buildah run --isolation chroot "${containers[0]}" -- svc accounts list 2>&1) ||
  fail "svc accounts list in the container failed: $accounts"
grep -q owner <<<"$accounts" || fail "svc accounts list in the container does not list the owner: $accounts"
echo "svc accounts list (as docker exec): lists the owner account"

t=$SECONDS
stop single
echo "SIGTERM: exited 0 in $(elapsed "$t")"

# ---- 4. compose.yaml's topology: --role api and --role worker on PostgreSQL and Redis
if [ -n "${DATABASE_URL:-}" ] && [ -n "${REDIS_URL:-}" ]; then
  step "roles: serve --role api and serve --role worker on PostgreSQL and Redis (compose.yaml)"
  command -v psql >/dev/null 2>&1 || fail "psql is needed for the roles check (apt-get install postgresql-client)"
  t=$SECONDS
  database=svc_container_smoke_$$
  psql "$DATABASE_URL" -q -c "CREATE DATABASE $database" >/dev/null
  database_url=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.href)' "$DATABASE_URL" "$database")
  secret=$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("hex"))')
  shared=("SVC_DATABASE_URL=$database_url" "SVC_REDIS_URL=$REDIS_URL" "SVC_REDIS_PREFIX=svc-container-smoke-$$" "SVC_SECRET_KEY=$secret")
  api_port=$(free_port)
  worker_port=$(free_port)
  # The commands and SVC_ variables compose.yaml gives its api and worker services.
  mapfile -t api_cmd < <(args_of "$(sed -n '/^  api:/,/^  [a-z]/s/^ *command: //p' compose.yaml)")
  mapfile -t worker_cmd < <(args_of "$(sed -n '/^  worker:/,/^  [a-z]/s/^ *command: //p' compose.yaml)")
  [ "${api_cmd[*]}" = "serve --role api" ] && [ "${worker_cmd[*]}" = "serve --role worker" ] ||
    fail "compose.yaml: expected the commands serve --role api and serve --role worker, found '${api_cmd[*]}' and '${worker_cmd[*]}'"
  mapfile -t compose_env < <(grep -oE '^ +SVC_[A-Z0-9_]+:' compose.yaml | tr -d ' :' | sort -u)
  # Every SVC_ variable compose.yaml sets is a setting the image's svc serve knows (with values
  # like compose's; --print-config checks them and exits).
  check_env=()
  for name in "${compose_env[@]}"; do
    case "$name" in
      SVC_DATABASE_URL) check_env+=("$name=postgres://svc:svc@postgres:5432/svc") ;;
      SVC_REDIS_URL) check_env+=("$name=redis://redis:6379") ;;
      SVC_SECRET_KEY) check_env+=("$name=$secret") ;;
      *) fail "compose.yaml sets $name, for which this check has no value: add one here" ;;
    esac
  done
  run print-config "${check_env[@]}" -- "${api_cmd[@]}" --print-config
  wait "$(cat "$work/print-config.pid")" ||
    fail "svc serve --print-config with compose.yaml's variables failed: $(cat "$work/print-config.err")"
  ! grep -q 'warning' "$work/print-config.err" || fail "compose.yaml's variables: $(cat "$work/print-config.err")"
  echo "compose.yaml: its variables (${compose_env[*]}) are settings svc serve knows"
  run api "${shared[@]}" "SVC_PORT=$api_port" -- "${api_cmd[@]}"
  run worker "${shared[@]}" "SVC_PORT=$worker_port" -- "${worker_cmd[@]}"
  api=http://127.0.0.1:$api_port
  wait_healthy "$api" 120 api >/dev/null
  worker_health=$(wait_healthy "http://127.0.0.1:$worker_port" 120 worker)
  [ "$(field role <<<"$worker_health")" = worker ] || fail "the worker's health: $worker_health"
  api_key=$(grep -o 'sk_live_[0-9a-z]*' "$work/api.err" | head -n 1)
  [ -n "$api_key" ] || fail "the API process printed no keys: $(cat "$work/api.err")"
  job=$(printf '8.8.8.8\n1.1.1.1\n' | expect 202 -H "X-API-Key: $api_key" -H 'Content-Type: text/plain' \
    --data-binary @- "$api/v2/batch?type=geo_ip")
  id=$(field id <<<"$job")
  [ -n "$id" ] || fail "POST /v2/batch: no job id: $job"
  until=$((SECONDS + 60))
  while :; do
    job=$(expect 200 -H "X-API-Key: $api_key" "$api/v2/batch/$id")
    [ "$(field status <<<"$job")" = completed ] && break
    [ "$SECONDS" -lt "$until" ] || fail "the worker did not complete $id within 60 s: $job; worker: $(tail -n 20 "$work/worker.err")"
    sleep 0.5
  done
  echo "batch job $id submitted to --role api, completed by --role worker"
  stop worker
  stop api
  echo "roles: $(elapsed "$t") (both stopped by SIGTERM with exit status 0)"
else
  step "roles: skipped (set DATABASE_URL and REDIS_URL to run --role api and --role worker from the image)"
fi

printf '\ncontainer-smoke: ok in %s s (base %s s, build %s s, start to healthy %s s, image %s)\n' \
  "$((SECONDS - started))" "$base_seconds" "$build_seconds" "$healthy_seconds" "$size"
