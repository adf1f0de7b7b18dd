# loadlab's container image: the `loadlab` binary on a slim Debian.
# Build:   docker build --build-arg LOADLAB_GIT_REV=$(git rev-parse --short=12 HEAD) \
#            -t REGISTRY/loadlab:0.1.0 .
# (.git is not copied in: without the argument the build says "unknown".)
# The image is not published from this repository; build and push it to a
# registry your cluster pulls from, then `loadlab k8s render --image …`.
# See docs/distributed.md ("Kubernetes").

# --- build: the toolchain the workspace pins (rust-version 1.95) ---
FROM rust:1.95-trixie AS build
WORKDIR /src
ARG LOADLAB_GIT_REV=
ENV LOADLAB_GIT_REV=${LOADLAB_GIT_REV}
COPY . .
# --locked: the versions of Cargo.lock, as CI builds them. The `dist`
# profile (fat LTO, one codegen unit): workers are there to make load.
RUN cargo build --profile dist --locked -p loadlab --features full \
 && cp target/dist/loadlab /usr/local/bin/loadlab

# --- runtime: the binary, CA certificates (S3 over https), no shell tools needed ---
FROM debian:trixie-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/loadlab /usr/local/bin/loadlab
# An unprivileged user; the worker writes only to its temporary folder
# (results before their upload) and to a mounted results volume.
RUN useradd --uid 10001 --user-group --no-create-home loadlab
USER 10001:10001
WORKDIR /tmp
# The Job's pods run `loadlab attack …` (command + args in the manifest).
CMD ["loadlab", "--help"]
