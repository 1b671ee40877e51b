# Hub in a container: built in one stage, run from the compiled bundle in a
# small second one, as an unprivileged user, with the data folder a volume.
# docker build -t hub . && docker run -p 3000:3000 -v hub-data:/data hub

FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN npm install -g pnpm@12.21.0
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY contract/package.json contract/
COPY server/package.json server/
COPY client/package.json client/
COPY tests/package.json tests/
COPY bench/package.json bench/
RUN pnpm install --frozen-lockfile --filter @hub/server... --filter @hub/client...
COPY contract contract
COPY server server
COPY client client
RUN pnpm build

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=3000 \
    MCPHUB_SETTING_PATH=/data/mcp_settings.json
WORKDIR /app
# The bundle holds every dependency but the password hasher's native addon.
COPY server/package.json server/
RUN cd server && npm install --no-save --omit=dev --no-package-lock "@node-rs/argon2@$(node -p "require('./package.json').dependencies['@node-rs/argon2']")" \
    && mkdir -p /data && chown node:node /data
COPY --from=build /app/server/dist server/dist
COPY --from=build /app/client/dist client/dist
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:3000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "--max-semi-space-size=4", "--gc-memory-reducer-start-delay-ms=2000", "server/dist/main.js"]
