"""A throw-away JupyterHub for the class test: loopback only, all state in one temporary folder.

The test sets the WTS_HUB_* variables below. Learners log in with one shared password
(SharedPasswordAuthenticator, the non-deprecated form of DummyAuthenticator's password); every
learner's JupyterLab runs as the current user (root in CI) in a home folder of its own, from
the project's virtual environment, where whentostop and nbgitpuller are installed — as in an
institution's hub image.
"""

import os
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
c.Spawner.start_timeout = 90
c.Spawner.http_timeout = 90
c.Spawner.args = [
    "--allow-root",
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    "--MappingKernelManager.cull_interval=10",
    "--MappingKernelManager.cull_idle_timeout=60",
]
# Offline: Spawner.env_keep passes PATH and a few locale variables only, so no endpoint
# setting (OPENAI_*) of the machine reaches a learner's kernel.
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
        {name: _room_setting(name) for name in ("OPENAI_BASE_URL", "WHENTOSTOP_MODEL")})
# An instructor's API token (WTS_INSTRUCTOR_TOKEN): start and stop learners' servers, reach them.
if os.environ.get("WTS_INSTRUCTOR_TOKEN"):
    c.JupyterHub.services = [{"name": "instructor",
                              "api_token": os.environ["WTS_INSTRUCTOR_TOKEN"]}]
    c.JupyterHub.load_roles = [{"name": "instructor", "services": ["instructor"],
                                "scopes": ["admin:servers", "access:servers", "read:users"]}]
