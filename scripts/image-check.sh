#!/usr/bin/env bash
# The Dockerfile, run on a machine without Docker (this one, and CI): `npm run image:check`.
#
# It does not keep a second copy of the image's steps: it reads the Dockerfile and compose.yaml
# and carries them out in a temporary folder, so the two cannot drift.
#   1. context   the files git sees (tracked and untracked, minus .gitignore), minus .dockerignore
#   2. build     the build stage's COPY (from the context) and RUN lines, in order
#   3. image     the run stage's COPY --from=build lines into an empty folder: all the image has;
#                its RUN lines set up the image's OS user and folders and are skipped here
#   4. run       from that folder, with node 24 and no tsx on PATH, NODE_ENV=production and the
#                Dockerfile's ENV: web (its CMD) and worker/migrate (compose.yaml's `command`)
# and checks: no tsx and no dev dependencies in the image; web and worker refuse an unmigrated
# schema; migrate creates a fresh PostgreSQL schema (?schema=), twice without harm; /healthz and
# /readyz answer 200 and the HEALTHCHECK command passes; a signed Shopify webhook is stored and
# its job completed by the worker; SIGTERM stops web and worker with status 0; their logs hold
# none of the secrets they were given.
#
# IMAGE_CHECK_DATABASE_URL: the PostgreSQL server (default the local `test` database); a fresh
# schema there, dropped at the end. IMAGE_CHECK_KEEP=1 keeps the temporary folder.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_SERVER=${IMAGE_CHECK_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/test}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/image-check.XXXXXX")
CTX=$TMP/context BUILD=$TMP/build IMAGE=$TMP/image BIN=$TMP/bin LOGS=$TMP/logs
START=$SECONDS
PIDS=()
SCHEMA=""

say() { printf '[image-check %3ds] %s\n' "$((SECONDS - START))" "$*"; }
fail() {
  say "FAIL: $*"
  exit 1
}
cleanup() {
  local status=$?
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if [[ -n $SCHEMA ]]; then psql "$PG_SERVER" -qAtc "DROP SCHEMA IF EXISTS \"$SCHEMA\" CASCADE" >/dev/null 2>&1 || true; fi
  if [[ $status -ne 0 && -d $LOGS ]]; then
    for f in "$LOGS"/*; do [[ -f $f ]] && { echo "---- $f (last 40 lines)"; tail -n 40 "$f"; }; done
  fi
  if [[ ${IMAGE_CHECK_KEEP:-0} == 1 ]]; then say "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
mkdir -p "$CTX" "$BUILD" "$IMAGE" "$BIN" "$LOGS"

# ---- node 24, as the image's node:24-slim has it -------------------------------------------
NODE24=$(realpath "$REPO/node_modules/node/bin/node" 2>/dev/null || true)
[[ -x $NODE24 && $("$NODE24" --version) == v24.* ]] ||
  fail "node 24 not found at node_modules/node/bin/node (run npm ci in the repository first)"
cp "$NODE24" "$BIN/node"
NODE=$BIN/node
BUILD_PATH=$BIN:$PATH
# The image's PATH: node and the system, nothing else (no global tsx, no repository bin).
RUN_PATH=$BIN:/usr/local/bin:/usr/bin:/bin

# ---- 0. read the Dockerfile: one instruction per line, continuations joined ----------------
# Prints `stage<TAB>INSTRUCTION<TAB>arguments`; stage is the FROM's `AS` name, or "final".
plan=$("$NODE" -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").replace(/\\\n/g, " ").split("\n");
  let stage = null;
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const [, instr, rest] = line.match(/^(\S+)\s+(.*)$/) ?? [];
    if (!instr) throw new Error(`cannot read: ${line}`);
    if (instr === "FROM") { stage = / AS (\S+)$/i.exec(rest)?.[1] ?? "final"; continue; }
    console.log([stage, instr, rest.replace(/\s+/g, " ")].join("\t"));
  }' "$REPO/Dockerfile")

# ---- 1. the build context ------------------------------------------------------------------
say "context: the repository's files less .dockerignore"
(cd "$REPO" && git ls-files -co --exclude-standard -z) | "$NODE" -e '
  // .dockerignore as Docker reads it: patterns from the context root, * within a segment,
  // ** across segments, a pattern also excludes what lies under it, ! re-includes.
  const fs = require("fs");
  const rules = fs.readFileSync(process.argv[1], "utf8").split("\n").map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const neg = l.startsWith("!");
      const p = (neg ? l.slice(1) : l).replace(/^\/+|\/+$/g, "");
      const re = p.split("/").map((seg) => seg === "**" ? ".*" :
        seg.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]")).join("/");
      return { neg, re: new RegExp(`^${re}(/.*)?$`) };
    });
  const files = fs.readFileSync(0, "utf8").split("\0").filter((f) => f && fs.existsSync(f));
  const kept = files.filter((f) => {
    let out = false;
    for (const r of rules) if (r.re.test(f)) out = !r.neg;
    return !out;
  });
  process.stdout.write(kept.join("\0"));
' "$REPO/.dockerignore" >"$TMP/context.list"
(cd "$REPO" && tar --null -T "$TMP/context.list" -cf -) | tar -C "$CTX" -xf -
say "context: $(tr -cd '\0' <"$TMP/context.list" | wc -c) files"

# Docker's COPY: a directory source copies its contents; several sources, or a destination
# ending in /, go into that directory.
copy_into() { # <from-root> <to-root> <dest> <src>...
  local from=$1 to=$2 dest=$3
  shift 3
  local target=$to/${dest#./}
  if [[ $# -gt 1 || $dest == */ || $dest == . || $dest == ./ ]]; then mkdir -p "$target"; fi
  for src in "$@"; do
    local path=$from/${src#./}
    [[ -e $path ]] || fail "COPY: $src does not exist"
    if [[ -d $path ]]; then
      mkdir -p "$target"
      cp -a "$path/." "$target/"
    elif [[ -d $target ]]; then
      cp -a "$path" "$target/"
    else
      mkdir -p "$(dirname "$target")"
      cp -a "$path" "$target"
    fi
  done
}

set_env() { # KEY=value ... into the named array
  local -n into=$1
  shift
  for kv in "$@"; do into+=("$kv"); done
}

BUILD_ENV=()
IMAGE_ENV=()
WEB_CMD=""
HEALTH_CMD=""

# ---- 2. the build stage, 3. the image -------------------------------------------------------
while IFS=$'\t' read -r stage instr args; do
  case "$stage:$instr" in
    build:WORKDIR | final:WORKDIR) [[ $args == /app ]] || fail "WORKDIR $args: only /app is followed" ;;
    build:ENV) read -ra kv <<<"$args" && set_env BUILD_ENV "${kv[@]}" ;;
    final:ENV) read -ra kv <<<"$args" && set_env IMAGE_ENV "${kv[@]}" ;;
    build:COPY)
      read -ra words <<<"$args"
      [[ ${words[0]} != --* ]] || fail "build stage COPY ${words[0]} is not followed"
      copy_into "$CTX" "$BUILD" "${words[-1]}" "${words[@]:0:${#words[@]}-1}"
      ;;
    build:RUN)
      say "build: RUN $args"
      (cd "$BUILD" && env "${BUILD_ENV[@]}" PATH="$BUILD_PATH" npm_config_prefer_offline=true \
        bash -euo pipefail -c "$args") >>"$LOGS/build.log" 2>&1 ||
        { tail -n 60 "$LOGS/build.log"; fail "build step failed: RUN $args"; }
      ;;
    final:COPY)
      read -ra words <<<"$args"
      [[ ${words[0]} == --from=build ]] || fail "run stage COPY without --from=build: $args"
      srcs=("${words[@]:1:${#words[@]}-2}")
      copy_into "$BUILD" "$IMAGE" "${words[-1]}" "${srcs[@]#/app/}"
      ;;
    final:RUN) say "image: skipped (the image's OS setup): RUN $args" ;;
    final:USER | final:EXPOSE) ;;
    final:HEALTHCHECK) HEALTH_CMD=${args#* CMD } ;;
    final:CMD) WEB_CMD=$args ;;
    *) fail "Dockerfile instruction not followed by the image check: $stage $instr $args" ;;
  esac
done <<<"$plan"
[[ -n $WEB_CMD && -n $HEALTH_CMD ]] || fail "the Dockerfile has no CMD or no HEALTHCHECK"
say "image: $(cd "$IMAGE" && echo *) ($(du -sm "$IMAGE" | cut -f1) MB)"

json_words() { "$NODE" -e 'for (const w of JSON.parse(process.argv[1])) console.log(w)' "$1"; }
compose_command() { # the exec-form `command:` of a compose.yaml service
  "$NODE" -e '
    const [file, name] = process.argv.slice(1);
    let inServices = false, current = null;
    for (const line of require("fs").readFileSync(file, "utf8").split("\n")) {
      if (/^\S/.test(line)) { inServices = line.startsWith("services:"); continue; }
      const svc = /^  ([\w-]+):\s*$/.exec(line);
      if (inServices && svc) { current = svc[1]; continue; }
      const cmd = /^    command:\s*(\[.*\])\s*$/.exec(line);
      if (inServices && current === name && cmd) { console.log(cmd[1]); process.exit(0); }
    }
    process.exit(1);' "$REPO/compose.yaml" "$1" || fail "compose.yaml has no exec-form command for $1"
}
mapfile -t WEB < <(json_words "$WEB_CMD")
mapfile -t HEALTH < <(json_words "$HEALTH_CMD")
mapfile -t WORKER < <(json_words "$(compose_command worker)")
mapfile -t MIGRATE < <(json_words "$(compose_command migrate)")
[[ $(json_words "$(compose_command web)") == $(json_words "$WEB_CMD") ]] || fail "compose.yaml's web command differs from the Dockerfile's CMD"

# ---- what the image holds ------------------------------------------------------------------
for dev in tsx .bin/tsx vitest @remix-run/dev eslint @shopify/cli node; do
  [[ ! -e $IMAGE/node_modules/$dev ]] || fail "the image holds node_modules/$dev"
done
! PATH=$RUN_PATH command -v tsx >/dev/null || fail "tsx is on the run PATH"
for f in "${WEB[1]}" "${WORKER[1]}" "${MIGRATE[1]}"; do
  [[ -f $IMAGE/$f ]] || fail "the image has no $f (is it built by npm run build?)"
done
say "image: no tsx, no dev dependencies; ${WEB[*]} / ${WORKER[*]} / ${MIGRATE[*]}"

# ---- 4. run it ---------------------------------------------------------------------------
SCHEMA="image_check_$$_$RANDOM"
DATABASE_URL=$("$NODE" -e 'const u = new URL(process.argv[1]); u.searchParams.set("schema", process.argv[2]); console.log(u.toString())' "$PG_SERVER" "$SCHEMA")
PORT=$("$NODE" -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
API_SECRET="imgcheck-secret-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
ENC_KEY=$(head -c 32 /dev/urandom | base64)
APP_ENV=(
  HOME="$TMP" PATH="$RUN_PATH" "${IMAGE_ENV[@]}" NODE_ENV=production PORT="$PORT"
  DATABASE_URL="$DATABASE_URL" DATABASE_POOL_MAX=4 LOG_LEVEL=info
  SHOPIFY_API_KEY=image-check-key SHOPIFY_API_SECRET="$API_SECRET"
  SHOPIFY_APP_URL="http://127.0.0.1:$PORT" ENCRYPTION_KEY="$ENC_KEY" WORKER_CONCURRENCY=2
)
in_image() { (cd "$IMAGE" && exec env -i "${APP_ENV[@]}" "$@"); }

say "run: web and worker refuse a schema without migrations"
for name in web worker; do
  declare -n cmd=${name^^}
  set +e
  (cd "$IMAGE" && exec timeout 60 env -i "${APP_ENV[@]}" "${cmd[@]}") \
    >"$LOGS/$name-refused.out" 2>"$LOGS/$name-refused.err"
  code=$?
  set -e
  [[ $code -ne 0 && $code -ne 124 ]] || fail "$name did not refuse to start on an unmigrated schema (status $code)"
  grep -q "npm run db:migrate" "$LOGS/$name-refused.err" ||
    fail "$name's refusal does not say what to do: $(cat "$LOGS/$name-refused.err")"
  say "run: $name refused (status $code): $(head -n 1 "$LOGS/$name-refused.err")"
done

say "run: migrate (${MIGRATE[*]}) into schema $SCHEMA"
in_image "${MIGRATE[@]}" >"$LOGS/migrate.log" 2>&1 || fail "migrate failed: $(tail -n 5 "$LOGS/migrate.log")"
grep -q "applied to schema \"$SCHEMA\"" "$LOGS/migrate.log" || fail "migrate did not migrate $SCHEMA"
in_image "${MIGRATE[@]}" >"$LOGS/migrate-again.log" 2>&1 || fail "a second migrate failed"
grep -q "is up to date" "$LOGS/migrate-again.log" || fail "a second migrate was not a no-op"
tables=$(psql "$PG_SERVER" -qAtc "SELECT count(*) FROM information_schema.tables WHERE table_schema = '$SCHEMA'")
[[ $tables -gt 5 ]] || fail "schema $SCHEMA has $tables tables"
say "run: $tables tables in $SCHEMA; a second migrate applied nothing"

# `( … exec … ) &`: the background pid is node's own, so SIGTERM reaches the program.
(cd "$IMAGE" && exec env -i "${APP_ENV[@]}" "${WEB[@]}") >"$LOGS/web.log" 2>&1 &
WEB_PID=$!
PIDS+=("$WEB_PID")
(cd "$IMAGE" && exec env -i "${APP_ENV[@]}" "${WORKER[@]}") >"$LOGS/worker.log" 2>&1 &
WORKER_PID=$!
PIDS+=("$WORKER_PID")

wait_200() { # <path>
  for _ in $(seq 1 120); do
    if [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$1") == 200 ]]; then return 0; fi
    kill -0 "$WEB_PID" 2>/dev/null || fail "web exited while waiting for $1"
    sleep 0.5
  done
  fail "$1 did not answer 200 within 60 s: $(curl -s "http://127.0.0.1:$PORT$1")"
}
wait_200 /healthz
wait_200 /readyz
say "run: /healthz $(curl -s "http://127.0.0.1:$PORT/healthz"), /readyz 200"
in_image "${HEALTH[@]}" || fail "the Dockerfile's HEALTHCHECK command failed"
say "run: the HEALTHCHECK command passes"

SHOP=image-check.myshopify.com
psql "$PG_SERVER" -qAt -v ON_ERROR_STOP=1 >/dev/null <<SQL
SET search_path TO "$SCHEMA";
INSERT INTO "Shop" (id, domain, "updatedAt") VALUES ('image-check', '$SHOP', now());
INSERT INTO "Session" (id, shop, state, "isOnline", scope, "accessToken")
VALUES ('offline_$SHOP', '$SHOP', '', false, 'read_orders', 'image-check-not-a-token');
SQL
status=$("$NODE" -e '
  const [url, secret, shop] = process.argv.slice(1);
  const body = JSON.stringify({
    shop_id: 1, shop_domain: shop, orders_requested: [],
    customer: { id: 7, email: "customer@example.com", phone: null }, data_request: { id: 9 },
  });
  const hmac = require("crypto").createHmac("sha256", secret).update(body).digest("base64");
  fetch(url, { method: "POST", body, headers: {
    "Content-Type": "application/json", "X-Shopify-Topic": "customers/data_request",
    "X-Shopify-Shop-Domain": shop, "X-Shopify-Hmac-Sha256": hmac,
    "X-Shopify-Webhook-Id": crypto.randomUUID(), "X-Shopify-Event-Id": crypto.randomUUID(),
    "X-Shopify-Triggered-At": new Date().toISOString(), "X-Shopify-API-Version": "2026-10",
  } }).then((r) => console.log(r.status), (e) => { console.log(e.message); process.exit(1); });
' "http://127.0.0.1:$PORT/webhooks/compliance" "$API_SECRET" "$SHOP")
[[ $status == 200 ]] || fail "the signed webhook got $status"
job_state() {
  psql "$PG_SERVER" -qAtc "SELECT string_agg(state, ',') FROM \"$SCHEMA\".\"Job\"
    WHERE kind = 'shopify:customers/data_request' AND \"shopDomain\" = '$SHOP'"
}
for _ in $(seq 1 120); do
  [[ $(job_state) == completed ]] && break
  kill -0 "$WORKER_PID" 2>/dev/null || fail "the worker exited"
  sleep 0.5
done
[[ $(job_state) == completed ]] || fail "the webhook's job is '$(job_state)', not completed, after 60 s"
say "run: a signed customers/data_request webhook got 200 and the worker completed its job"

kill -TERM "$WEB_PID" "$WORKER_PID"
for name in web worker; do
  pid_var=${name^^}_PID
  set +e
  wait "${!pid_var}"
  code=$?
  set -e
  [[ $code -eq 0 ]] || fail "$name exited with status $code after SIGTERM"
done
PIDS=()
say "run: SIGTERM: web and worker exited 0"

for secret in "$API_SECRET" "$ENC_KEY"; do
  if grep -rqF -- "$secret" "$LOGS"; then fail "a log holds a secret it was given"; fi
done
say "image check passed in $((SECONDS - START)) s"
