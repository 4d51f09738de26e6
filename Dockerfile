# thue-server image: a Debian 12 build stage, then a slim runtime stage with only the
# shared libraries the server needs. Build and run (docs/server.md, "Docker"):
#   docker build -t thue-server .
#   docker run -d --name thue -p 8080:8080 -v thue-data:/var/lib/thue thue-server
# Settings come from THUE_* variables (docker run -e THUE_LOG_LEVEL=debug ...) or flags
# after the image name (docker run ... thue-server --max-rooms 500).

# ---- build ----
FROM debian:bookworm AS build
WORKDIR /src
COPY . .
# The same build script as the README's commands (it installs the build packages).
RUN bash scripts/build.sh -DTHUE_TESTS=OFF && rm -rf /var/lib/apt/lists/*

# ---- runtime ----
FROM debian:bookworm-slim
# libwebsockets-evlib-uv is the libuv plugin that libwebsockets17 dlopen()s at start;
# curl serves the health check; sqlite3 takes online backups (docs/operations.md); libicu72
# checks player names (NFKC, case folding, confusables); libpq5 and libhiredis0.14 are
# the PostgreSQL store (--db postgres://...) and the Redis client (--redis) of several nodes;
# libsodium23 hashes account passwords (Argon2id); stunnel4 is the TLS client a node's
# sidecar runs to reach Redis across hosts (hiredis 0.14 has no TLS: deploy/README.md,
# "Redis with TLS").
# The user has a fixed numeric id, so that Kubernetes can check runAsNonRoot.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libuv1 libjansson4 libwebsockets17 libwebsockets-evlib-uv libsqlite3-0 libicu72 curl \
      sqlite3 libpq5 libhiredis0.14 libsodium23 stunnel4 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/thue \
      --shell /usr/sbin/nologin thue \
 && mkdir -p /var/lib/thue \
 && chown thue:thue /var/lib/thue
COPY --from=build /src/build/server/thue-server /usr/local/bin/thue-server
COPY --from=build /src/build/clients/cli/thue /usr/local/bin/thue
COPY --from=build /src/clients/web /usr/share/thue/web

ENV THUE_DB=/var/lib/thue/thue.db \
    THUE_WEB_ROOT=/usr/share/thue/web \
    THUE_BIND=0.0.0.0
VOLUME /var/lib/thue
WORKDIR /var/lib/thue
USER 10001:10001
EXPOSE 8080
# Change the port with THUE_PORT (not --port) so that the health check follows it.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${THUE_PORT:-8080}/healthz" || exit 1
# SIGTERM (docker stop) shuts the server down cleanly: players get goodbye "shutdown".
STOPSIGNAL SIGTERM
ENTRYPOINT ["thue-server"]
