# The kepler-model image: every service, or all six in one process, from one image.
#   docker build -t kepler-model:0.1.0 .
#   docker run --rm -p 8100-8106:8100-8106 kepler-model:0.1.0                 # all six services, /metrics on 8106
#   docker run --rm -p 8101:8101 kepler-model:0.1.0 serve estimator \
#     --registry-address registry.example:8100                               # one service
# The image listens on 0.0.0.0: without tokens its servers refuse writes (reads stay open) unless
# KEPLER_MODEL_INSECURE_ALLOW_UNAUTHENTICATED_WRITES=true; give them tokens before exposing its ports (docs/security.md).
# Mount a tokens file, lines "name:token[:read|write]" (tokens of 16 or more characters), readable by
# uid 1000, and name it in KEPLER_MODEL_AUTH_TOKENS_FILE (never bake tokens into the image):
#   docker run --rm -p 8100-8106:8100-8106 -v "$PWD/tokens:/run/secrets/kepler-model/tokens:ro" \
#     -e KEPLER_MODEL_AUTH_TOKENS_FILE=/run/secrets/kepler-model/tokens kepler-model:0.1.0
# Clients then send a token with --token-file (KEPLER_MODEL_TOKEN_FILE); peers in one process use the
# file's first write token. In Kubernetes the mesh-auth overlay mounts the file from a Secret.
# The builder stage generates the contracts, builds the WebAssembly core and bundles the command
# (dist/, npm run build); bin/kepler-model.js runs that bundle, or the TypeScript sources through tsx (a
# production dependency) with --trainer-modules.
# The version label is package.json's version (cli/version.test.ts checks they agree); pass the commit with
#   docker build --build-arg REVISION="$(git rev-parse HEAD)" -t kepler-model:0.1.0 .
# (the build context has no .git): it becomes the revision label, `kepler-model --version` and the
# kepler_model_build_info metric's revision ("unknown" when not given).
ARG NODE_IMAGE=node:20-bookworm-slim
ARG REVISION=unknown

FROM ${NODE_IMAGE} AS builder
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` (the build) needs the sources, copied below; it runs explicitly after them.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY buf.yaml buf.gen.yaml tsconfig.json ./
COPY proto ./proto
COPY wasm-core ./wasm-core
# The command's bundle and the stand-alone VM exporter (dist/) are built from the CLI and service sources.
COPY bin ./bin
COPY cli ./cli
COPY services ./services
COPY deploy/vm/build-exporter.mjs ./deploy/vm/
ARG REVISION
ENV KEPLER_MODEL_REVISION=${REVISION}
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ARG REVISION
LABEL org.opencontainers.image.title="kepler-model" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production \
    KEPLER_MODEL_HOST=0.0.0.0 \
    KEPLER_MODEL_METRICS_HOST=0.0.0.0 \
    KEPLER_MODEL_LOG_FORMAT=json \
    MODEL_PATH=/var/lib/kepler-model/models
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; --ignore-scripts skips `prepare`, whose build tools are dev dependencies.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY bin ./bin
COPY cli ./cli
COPY services ./services
COPY wasm-core/src ./wasm-core/src
COPY --from=builder /src/services/generated ./services/generated
COPY --from=builder /src/wasm-core/build ./wasm-core/build
COPY --from=builder /src/dist ./dist
RUN mkdir -p /var/lib/kepler-model/models && chown node:node /var/lib/kepler-model/models \
    && ln -s /app/bin/kepler-model.js /usr/local/bin/kepler-model
# The node image's unprivileged user (uid 1000); the Kubernetes manifests run as the same uid.
USER node
# registry, estimator, pipeline, extractor, isolator, trainer (services/kit/config/service-addresses.ts),
# and the process's Prometheus /metrics (services/kit/observe/metrics.ts).
EXPOSE 8100 8101 8102 8103 8104 8105 8106
VOLUME ["/var/lib/kepler-model/models"]
ENTRYPOINT ["node", "/app/bin/kepler-model.js"]
CMD ["serve"]
