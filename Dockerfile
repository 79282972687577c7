# syntax=docker/dockerfile:1
# sqlgym's release image: the sqlgym binary on a slim Debian, run as a
# non-root user. cgo (SQLite, DuckDB) needs glibc, hence Debian rather than
# a static or musl base.
#
#   docker build -t sqlgym --build-arg VERSION=v0.3.0 --build-arg COMMIT=$(git rev-parse HEAD) .
#   docker run --rm -p 8421:8421 sqlgym serve --tasks shop --addr 0.0.0.0:8421

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-bookworm AS build
# gcc and the C library headers come with the golang image; cgo is on.
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
# -trimpath: no build machine paths in the binary. The version and commit
# are stamped with -X because .git is not in the build context
# (.dockerignore), so the toolchain cannot record the commit itself.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=1 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/sqlgym/sqlgym/internal/cmd/cmdkit.Version=${VERSION} -X github.com/sqlgym/sqlgym/internal/cmd/cmdkit.Commit=${COMMIT}" \
      -o /out/sqlgym ./cmd/sqlgym

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 sqlgym \
 && useradd --uid 10001 --gid 10001 --home-dir /home/sqlgym --create-home --shell /usr/sbin/nologin sqlgym
COPY --from=build /out/sqlgym /usr/local/bin/sqlgym
# The built-in shop database is materialised here on first use.
ENV SQLGYM_CACHE=/home/sqlgym/.cache/sqlgym
USER 10001
WORKDIR /home/sqlgym
EXPOSE 8421
ENTRYPOINT ["/usr/local/bin/sqlgym"]
CMD ["serve", "--tasks", "shop", "--addr", "0.0.0.0:8421"]
