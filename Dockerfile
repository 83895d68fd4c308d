# Build stage compiles TypeScript; the runtime stage carries only dist, production deps and the
# files the bot reads at run time (playbooks, scenarios, manifest).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle-cli.mjs ./scripts/
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# The commit timeline picture needs one font for its labels (resvg reads the system fonts).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY src/sim/scenarios ./src/sim/scenarios
COPY playbooks ./playbooks
COPY manifest.yml ./
USER node
EXPOSE 3000
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["start"]
