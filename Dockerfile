# svc serve in a container: the /v2 API, the dashboard and the batch workers of this repository.
#
#   docker build -t svc .
#   docker run -d --name svc -p 8080:8080 -v svc-data:/data svc
#   docker logs svc            # the first start prints the owner account's keys here, once
#
# compose.yaml runs it as `--role api` and `--role worker` on PostgreSQL and Redis. Works with
# Docker, Podman and Buildah alike; docs/deployment.md#container-image says what is inside.
#
# NODE_IMAGE is the image both stages start from: the public Node 20 image by default; CI, which
# cannot pull images, passes one made from Debian's packages (scripts/container-base.sh).
ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: install the workspace, compile it, and lay out the CLI with its production dependencies
FROM ${NODE_IMAGE} AS build
ENV CI=true
# Behind a TLS-intercepting proxy, the path of a CA bundle mounted into the build for npm and pnpm
# (scripts/container-smoke.sh does so); unset by default. Not kept in the runtime image.
ARG NODE_EXTRA_CA_CERTS
WORKDIR /src
# pnpm at the version package.json pins.
COPY package.json ./
RUN npm install --global --no-audit --no-fund --loglevel=error \
      "$(node -p 'require("./package.json").packageManager')"
# Every package the lockfile names, into the store (/pnpm/store) and the virtual store: this
# layer is rebuilt only when the lockfile changes. (A build may mount a filled store there:
# scripts/container-smoke.sh.) better-sqlite3 is native and built here: its install downloads a
# prebuilt binary for this Node and platform or, where none can be downloaded, compiles one, for
# which python3, make and g++ are installed then (with the headers the Node image ships in
# /usr/local/include/node). pnpm install and deploy reuse that build.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch --store-dir /pnpm/store \
    || { apt-get update \
         && apt-get install -y --no-install-recommends python3 make g++ \
         && npm_config_nodedir=/usr/local pnpm fetch --store-dir /pnpm/store; }
COPY . .
RUN pnpm install --offline --frozen-lockfile --store-dir /pnpm/store
# Every package (tsc --build) and the dashboard, which @svc/server serves at /dashboard/.
RUN pnpm build
# /app: @svc/cli as a user's install has it: its package.json, dist/ and node_modules/ with the
# @svc packages (their published files) and the production dependencies, nothing else.
RUN pnpm --filter @svc/cli deploy --prod --offline --config.inject-workspace-packages=true \
      --store-dir /pnpm/store /app \
    && node /app/dist/bin.js --version \
    && find /app -exec touch --no-dereference --date="@$(date +%s)" {} +
# (The touch: image layers keep modification times in whole seconds, and the geo data's
# verification stamps below compare them; times with fractions would not match after a commit.)

# ---- runtime: Node, the CLI, the prepared geolocation data; runs as an unprivileged user
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    SVC_DATA_DIR=/data \
    SVC_HOST=0.0.0.0 \
    SVC_PORT=8080
RUN groupadd --gid 10001 svc \
    && useradd --uid 10001 --gid svc --home-dir /data --no-create-home --shell /usr/sbin/nologin svc \
    && mkdir -m 0700 /data \
    && chown svc:svc /data \
    && printf '#!/bin/sh\nexec node /app/dist/bin.js "$@"\n' >/usr/local/bin/svc \
    && chmod 0755 /usr/local/bin/svc
COPY --from=build /app /app
USER svc
WORKDIR /data
# The bundled geolocation data (DB-IP Lite via ip-location-db, CC BY 4.0) checked and its ASN file
# compiled now, into /data/geo, so that the first start does not spend about 20 s on it. A new
# named volume at /data starts with these files (Docker and Podman copy the image's /data into
# it); an empty bind-mounted directory makes the first start prepare them again.
# (Run twice: the second run stamps the compiled ASN file again with its mtime in whole seconds.)
RUN svc geo 8.8.8.8 >/dev/null \
    && touch --date="@$(date +%s)" /data/geo/*.mmdb \
    && svc geo 8.8.8.8 >/dev/null
# Everything svc serve keeps: the SQLite control plane and batch store, the server's secret key
# (unless SVC_SECRET_KEY is set), caches and the geo data. Owned by uid 10001, mode 0700.
VOLUME /data
EXPOSE 8080
# 200 while the server answers; `degraded` (a failing check such as the DNS resolver) is still
# 200: the other routes work, and the body names what fails. A worker answers on the same port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SVC_PORT||8080)+'/v2/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Node is PID 1 and svc serve handles SIGTERM itself (docker stop): no new connections, requests
# in flight finish, batch work is handed back, then it exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/dist/bin.js"]
CMD ["serve"]
