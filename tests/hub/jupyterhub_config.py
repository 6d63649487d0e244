"""A throw-away JupyterHub for the class test and the class simulation (bench/class_sim.py):
loopback only, all state in one temporary folder.

The test and the simulation set the WTS_HUB_* variables below (the WTS_ROOM_* and WTS_SPAWN_*
ones are optional). Learners log in with one shared password
(SharedPasswordAuthenticator, the non-deprecated form of DummyAuthenticator's password); every
learner's JupyterLab runs as the current user (root in CI) in a home folder of its own, from
the project's virtual environment, where whentostop and nbgitpuller are installed — as in an
institution's hub image.
"""

import os
import socket
from pathlib import Path

c = get_config()  # noqa: F821 (defined by JupyterHub when it loads this file)

state = Path(os.environ["WTS_HUB_DIR"])

c.JupyterHub.bind_url = f"http://127.0.0.1:{os.environ['WTS_HUB_PORT']}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ["WTS_HUB_API_PORT"])
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

c.ConfigurableHTTPProxy.command = [os.environ["WTS_PROXY"]]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ['WTS_PROXY_API_PORT']}"
c.ConfigurableHTTPProxy.auth_token = os.environ["WTS_PROXY_TOKEN"]
c.ConfigurableHTTPProxy.pid_file = str(state / "proxy.pid")

c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = os.environ["WTS_HUB_PASSWORD"]
c.Authenticator.allowed_users = set(os.environ["WTS_HUB_USERS"].split(","))

c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(state / "home" / "{username}")
c.Spawner.ip = "127.0.0.1"
c.Spawner.cmd = [os.environ["WTS_SINGLEUSER"]]
c.Spawner.default_url = "/lab"
# How long the hub waits for a learner's server: for the process to start (start_timeout), then
# for it to answer over HTTP (http_timeout). JupyterHub's defaults are 60 s and 30 s; a class
# that spawns all at once on a small machine needs more (bench/RESULTS.md, class simulation).
c.Spawner.start_timeout = int(os.environ.get("WTS_SPAWN_START_TIMEOUT", "90"))
c.Spawner.http_timeout = int(os.environ.get("WTS_SPAWN_HTTP_TIMEOUT", "90"))
# How many servers may be starting at once (JupyterHub's default: 100); past it, a learner's
# spawn is refused with HTTP 429 and retried.
if os.environ.get("WTS_SPAWN_LIMIT"):
    c.JupyterHub.concurrent_spawn_limit = int(os.environ["WTS_SPAWN_LIMIT"])
c.Spawner.args = [
    "--allow-root",
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    "--MappingKernelManager.cull_interval=10",
    "--MappingKernelManager.cull_idle_timeout=60",
]
# How kernels talk to their server. Jupyter's default, TCP, takes five loopback ports per kernel,
# picked by binding and releasing them: when a whole room starts its kernels at the same moment
# on one machine, two can pick the same port, and the kernel that loses hangs at start
# (ZMQError: Address already in use; bench/RESULTS.md, class simulation). IPC uses Unix sockets
# in each learner's runtime folder instead: no ports to collide. A socket's path must stay under
# 108 bytes, so the runtime folder is a short one.
if os.environ.get("WTS_KERNEL_TRANSPORT") == "ipc":
    c.Spawner.args.append("--KernelManager.transport=ipc")
    c.Spawner.environment.update(
        {"JUPYTER_RUNTIME_DIR": lambda spawner: str(state / "run" / spawner.user.name)}
    )
# The port of each learner's server. JupyterHub picks a random free port and lets it go before the
# server binds it; when a room spawns at once, two learners can be given the same one, and the
# hub, which takes any answer (even a 404) as "up", then routes the second learner to the first's
# server ("Not allowing user"; bench/RESULTS.md). Here each server gets a port no other server was
# given, from a range below the machine's ephemeral ports (where random ports and outgoing
# connections come from).
if os.environ.get("WTS_SERVER_PORTS"):
    low, high = (int(n) for n in os.environ["WTS_SERVER_PORTS"].split("-"))
    given: dict[str, int] = {}

    def own_port(spawner) -> None:
        taken = {port for name, port in given.items() if name != spawner.user.name}
        for port in range(low, high + 1):
            if port in taken:
                continue
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    continue
            given[spawner.user.name] = spawner.port = port
            return
        raise RuntimeError(f"no free port left in {low}-{high} for {spawner.user.name}")

    c.Spawner.pre_spawn_hook = own_port
# Offline: Spawner.env_keep passes PATH and a few locale variables only, so no endpoint
# setting (OPENAI_*) of the machine reaches a learner's kernel...
# ...unless the room shares one endpoint, set by the hub for every learner's server, as the
# instructor's guide (docs/workshop.md) does it with TLJH.
if os.environ.get("WTS_ROOM_BASE_URL"):
    c.Spawner.environment.update(
        {
            "OPENAI_BASE_URL": os.environ["WTS_ROOM_BASE_URL"],
            "WHENTOSTOP_MODEL": os.environ.get("WTS_ROOM_MODEL", ""),
        }
    )
# The instructor's room settings, read when each learner's server starts (WTS_ROOM_FILE: a JSON
# object of environment variables), so a test can change them while servers run — as an
# instructor edits c.Spawner.environment and reloads the hub. A server that is running, and
# every kernel it starts or restarts, keeps the environment it started with.
if os.environ.get("WTS_ROOM_FILE"):
    import json

    room = Path(os.environ["WTS_ROOM_FILE"])

    def _room_setting(name):
        return lambda spawner: json.loads(room.read_text()).get(name, "")

    c.Spawner.environment.update(
        {name: _room_setting(name) for name in ("OPENAI_BASE_URL", "WHENTOSTOP_MODEL")}
    )
# An instructor's API token (WTS_INSTRUCTOR_TOKEN): start and stop learners' servers, reach them.
if os.environ.get("WTS_INSTRUCTOR_TOKEN"):
    c.JupyterHub.services = [
        {"name": "instructor", "api_token": os.environ["WTS_INSTRUCTOR_TOKEN"]}
    ]
    c.JupyterHub.load_roles = [
        {
            "name": "instructor",
            "services": ["instructor"],
            "scopes": ["admin:servers", "access:servers", "read:users"],
        }
    ]
