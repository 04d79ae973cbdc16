# mirrorflow as a container image (docs/deploy.md). Builds with Docker or Podman from the repository root:
#
#   podman build -t mirrorflow:0.1.0 .        (or: docker build -t mirrorflow:0.1.0 .)
#   podman run --rm -p 9464:9464 -v ./my-pipeline.yaml:/etc/mirrorflow/pipeline.yaml:ro mirrorflow:0.1.0
#
# Three stages: `build` compiles with the dev dependencies, `package` installs the packed package
# (npm pack: dist/src and dist/plugins, no specs) with only the production dependencies from the
# lock file, and the runtime stage holds that and nothing else. NODE_IMAGE selects the base.
ARG NODE_IMAGE=docker.io/library/node:20-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /build
COPY package.json package-lock.json ./
# No install scripts: nothing mirrorflow depends on needs one, and `prepare` would compile before the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY plugins ./plugins
COPY scripts ./scripts
# npm run build: tsc, then inversify, rxjs, zod, yaml and winston bundled into one file each
# (scripts/bundle-vendor.mjs).
RUN npm run build && npm pack --ignore-scripts --pack-destination /build

FROM ${NODE_IMAGE} AS package
WORKDIR /opt/mirrorflow
COPY --from=build /build/mirrorflow-*.tgz /build/package-lock.json ./
# test/deploy/packed-cli.test.ts runs these same commands on `npm pack`'s output.
RUN tar -xzf mirrorflow-*.tgz --strip-components=1 && rm mirrorflow-*.tgz \
    && npm ci --omit=dev --ignore-scripts --no-audit --no-fund && chmod 0755 dist/src/cli/main.js

FROM ${NODE_IMAGE}
# tini runs as PID 1 and hands signals on to node. Node as PID 1 would ignore a SIGTERM that comes
# before mirrorflow sets its handler (while it connects), so a stop then waited for the SIGKILL.
RUN apt-get update && apt-get install -y --no-install-recommends tini='0.19.0-1*' \
    && apt-get clean && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
COPY --from=package /opt/mirrorflow /opt/mirrorflow
# `mirrorflow` on the PATH, for `kubectl exec ... mirrorflow status http://127.0.0.1:9464`.
RUN ln -s /opt/mirrorflow/dist/src/cli/main.js /usr/local/bin/mirrorflow
# The `node` user of the Node images, by number so Kubernetes can check runAsNonRoot.
USER 1000:1000
# Relative paths of an mm2.properties (`${file:...}`, PEM files) start in the working directory, as for MM2.
WORKDIR /etc/mirrorflow
EXPOSE 9464
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/opt/mirrorflow/dist/src/cli/main.js"]
# The HTTP endpoints listen on loopback unless told otherwise; in a container they must listen on every interface.
CMD ["run", "/etc/mirrorflow/pipeline.yaml", "--http", "0.0.0.0:9464"]
