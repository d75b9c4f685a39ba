# One image for every process of the app, started by command:
#   web      node build/server.js      (the default CMD; listens on $PORT)
#   worker   node build/worker.js      (as many as you like; no HTTP port)
#   migrate  node build/migrate.js     (once per release, before the new version starts)
# Compiled JavaScript only: no TypeScript, no tsx and no dev dependencies at run time.
#
# scripts/image-check.sh runs this file's steps on a machine without Docker (CI does): it reads
# this file and understands FROM … AS, WORKDIR, ENV, COPY (from the context, or --from=build),
# RUN, USER, EXPOSE, HEALTHCHECK and CMD in exec form. Keep to those, one instruction per line
# (a trailing backslash continues it), and the check keeps following what the image does.

# ---- build: install everything, compile, then drop the dev dependencies ----------------------
FROM node:24-slim AS build
WORKDIR /app
# What `npm ci` needs: its postinstall generates the Prisma client from the schema.
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts/generate.mjs ./scripts/
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

# ---- run: the compiled app and its production dependencies, as an unprivileged user ----------
FROM node:24-slim
WORKDIR /app
# A young generation of 4 MB a half: each process stays under 300 MB under a deep backlog (V8
# sizes it by the machine's memory otherwise; measured with bench:scale, README).
ENV NODE_ENV=production PORT=3000 NODE_OPTIONS=--max-semi-space-size=4
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/public ./public
COPY --from=build /app/prisma ./prisma
# The embedded database's folder, for a single container without DATABASE_URL (mount a volume).
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "build/server.js"]
