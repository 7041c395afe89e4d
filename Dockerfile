# One image for every Parley role; PARLEY_ROLES picks what a container runs (docker-compose.yml).
FROM node:20-bookworm-slim
WORKDIR /app
# The offline speech the workers use (docs/architecture.md §6): Debian's voices and its recogniser with the English model.
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends flite espeak-ng pocketsphinx pocketsphinx-en-us \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY engine/package.json engine/
# The engine's postinstall puts the Silero VAD model in engine/models.
COPY engine/scripts engine/scripts
COPY control-plane/package.json control-plane/
COPY sip-gateway/package.json sip-gateway/
COPY mcp/package.json mcp/
COPY bench/package.json bench/
# tsx (the TypeScript loader Parley runs with) is a devDependency of the workspace root, so keep dev dependencies.
RUN npm ci --include=dev --no-audit --no-fund
COPY . .
# PARLEY_DATA_DIR in docker-compose.yml: named volumes mounted under it start with this owner.
RUN mkdir -p /data/recordings && chown -R node:node /data
USER node
EXPOSE 3000 3100 5060/udp 5060/tcp 5070 9100
ENTRYPOINT ["node", "bin/parley.js"]
CMD ["start"]
