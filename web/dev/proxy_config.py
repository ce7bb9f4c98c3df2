"""An nginx configuration that puts several ``integrator-lab serve`` processes behind one
address and keeps each visitor on one of them::

    python -m integrator_lab.dev.proxy_config --ports 5101 5102 --listen 8080 --host lab.example.org

prints a block for Debian's nginx (``/etc/nginx/conf.d/integrator-lab.conf``), with the
``integrator-lab serve`` command of each process in its header; ``--standalone DIR`` prints
a whole ``nginx.conf`` instead, every file under ``DIR``, for nginx run by hand as any user.

Why the visitor must stay on one process: a session lives in the memory of the process
that built its page (its engine, its simulation, and the key that signs its websocket's
token), so the page at ``/`` and its websocket ``/ws`` must reach the same process (and so,
one key per visitor, do the page's files at ``/lab/``, Panel's at ``/static/`` and ``/status``).
nginx hashes each request on the cookie
``il_backend`` (``hash ... consistent``); a request without one (a new visitor) is hashed on a
random key (``$request_id``) that its response sets as the cookie, so every later request of
that visitor goes where the first went. Hashing on the client's address would keep a visitor
on one process without a cookie, but a class behind one NAT address (a school's network)
would all land on one process. Open-source nginx has no ``sticky`` directive (nginx Plus has).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

#: the cookie that names a visitor's process (its value is a key, hashed onto the processes)
COOKIE = "il_backend"
#: the name of the upstream group and of the access log's format
NAME = "integrator_lab"
#: how long (s) nginx keeps a websocket open with nothing sent either way: a visitor may
#: leave a paused page for a lesson's length; Bokeh pings every 37 s besides
IDLE_TIMEOUT = 3600
#: the ports ``--ports`` accepts
PORTS = (1, 65535)


def backend_options(origins) -> list[str]:
    """What each ``integrator-lab serve`` behind the proxy needs besides its port: its
    client's address taken from the proxy's headers (``--use-xheaders``: the caps per client
    count visitors, not the proxy) and the proxy's host names as the websocket's origins
    (the browser's page comes from the proxy's address, not the process's)."""
    options = ["--use-xheaders"]
    for origin in origins:
        options += ["--allow-websocket-origin", origin]
    return options


def serve_commands(ports, origins) -> list[str]:
    """The ``integrator-lab serve`` command of each process behind the proxy (on loopback
    only: visitors reach it through the proxy)."""
    options = shlex.join(backend_options(origins))
    return [
        f"integrator-lab serve --port {port} --address 127.0.0.1 --no-show {options}"
        for port in ports
    ]


def origins_for(hosts, listen: str) -> list[str]:
    """The websocket origins a page served by the proxy has: each host name with the
    proxy's port (Bokeh reads an origin without a port as port 80, so none for 80 and 443)."""
    port = listen.rpartition(":")[2]
    if port in ("80", "443"):
        return list(hosts)
    return [f"{host}:{port}" for host in hosts]


def site_block(ports, listen: str, hosts, access_log: str) -> str:
    """The ``http``-level block: the visitor's key, the processes, the proxy's server."""
    servers = "\n".join(f"    server 127.0.0.1:{port};" for port in ports)
    names = " ".join(hosts) if hosts else "_"
    return f"""\
# a visitor's key: its cookie, or (a new visitor) a random one its response sets as the cookie
map $cookie_{COOKIE} ${COOKIE} {{
    ""      $request_id;
    default $cookie_{COOKIE};
}}
map $cookie_{COOKIE} ${COOKIE}_new {{
    ""      "{COOKIE}=$request_id; Path=/; HttpOnly; SameSite=Lax";
    default "";
}}
# a websocket's request is passed on as one (Upgrade), any other request as plain HTTP
map $http_upgrade ${NAME}_connection {{
    default upgrade;
    ""      close;
}}

upstream {NAME} {{
    # one process per visitor key; adding or removing a process moves only its share
    hash ${COOKIE} consistent;
{servers}
}}

log_format {NAME} '$remote_addr "$request" $status key=${COOKIE} backend=$upstream_addr';

server {{
    listen {listen};
    server_name {names};
    access_log {access_log} {NAME};

    location / {{
        proxy_pass http://{NAME};
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection ${NAME}_connection;
        proxy_set_header Host $http_host;
        # the visitor's address and scheme (integrator-lab serve --use-xheaders reads them)
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_read_timeout {IDLE_TIMEOUT}s;
        proxy_send_timeout {IDLE_TIMEOUT}s;
        # the processes are on this machine: a response waits in memory, never in a file
        proxy_max_temp_file_size 0;
        add_header Set-Cookie ${COOKIE}_new always;
    }}
}}
"""


def header(ports, listen: str, hosts, run: str) -> str:
    """The comment at the top: what this is, how to start the processes and nginx."""
    origins = origins_for(hosts or ["localhost", "127.0.0.1"], listen)
    lines = [
        "Integrator Lab behind nginx: each visitor kept on one integrator-lab serve process",
        "(a session lives in one process's memory; python -m integrator_lab.dev.proxy_config).",
        "Start the processes (about one per core), then nginx:",
        *(f"  {command}" for command in serve_commands(ports, origins)),
        f"  {run}",
    ]
    return "".join(f"# {line}\n" for line in lines)


def config(ports, listen: str = "8080", hosts=(), standalone: Path | None = None) -> str:
    """The configuration: for Debian's nginx (``conf.d``), or with ``standalone`` a whole
    ``nginx.conf`` whose every file (pid, logs, temporary files) is under that folder, for
    ``nginx -p DIR -e DIR/error.log -c DIR/nginx.conf`` in the foreground as any user."""
    ports, hosts = list(ports), list(hosts)
    if standalone is None:
        run = (
            "save this as /etc/nginx/conf.d/integrator-lab.conf, then: nginx -t && nginx -s reload"
        )
        return (
            header(ports, listen, hosts, run)
            + "\n"
            + site_block(ports, listen, hosts, "/var/log/nginx/integrator-lab.log")
        )
    folder = Path(standalone).resolve()
    run = f"nginx -p {folder} -e {folder}/error.log -c {folder}/nginx.conf  (Ctrl+C stops it)"
    site = site_block(ports, listen, hosts, f"{folder}/access.log")
    temp = "\n".join(
        f"    {kind}_temp_path {folder}/{kind}_temp;"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    indented = "".join(f"    {line}\n" if line else "\n" for line in site.splitlines())
    return f"""{header(ports, listen, hosts, run)}
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log;

events {{
    worker_connections 1024;
}}

http {{
{temp}

{indented}}}
"""


def listen_address(text: str) -> str:
    """``--listen``: ``PORT`` or ``ADDRESS:PORT``, the port in [1, 65535]."""
    address, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        number = 0
    if not PORTS[0] <= number <= PORTS[1] or (":" in text and not address):
        raise argparse.ArgumentTypeError(
            f"got {text!r}, expected PORT or ADDRESS:PORT with PORT in [{PORTS[0]}, {PORTS[1]}]"
        )
    return text


def backend_port(text: str) -> int:
    """``--ports``: a TCP port in [1, 65535]."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if not PORTS[0] <= number <= PORTS[1]:
        raise argparse.ArgumentTypeError(
            f"got {text!r}, expected an integer in [{PORTS[0]}, {PORTS[1]}]"
        )
    return number


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m integrator_lab.dev.proxy_config",
        description="Print an nginx configuration that serves several integrator-lab serve "
        "processes on this machine behind one address, each visitor kept on one process.",
    )
    parser.add_argument(
        "--ports",
        type=backend_port,
        nargs="+",
        required=True,
        metavar="PORT",
        help="the ports of the integrator-lab serve processes (on 127.0.0.1)",
    )
    parser.add_argument(
        "--listen",
        type=listen_address,
        default="8080",
        metavar="[ADDRESS:]PORT",
        help="where nginx listens for visitors (default 8080, every interface)",
    )
    parser.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name or address visitors open the lab at (repeatable): nginx's server_name, "
        "and the websocket origin each process must allow (default: any name; the "
        "commands in the header then name localhost and 127.0.0.1)",
    )
    parser.add_argument(
        "--standalone",
        type=Path,
        metavar="DIR",
        help="print a whole nginx.conf with its pid, logs and temporary files under DIR, "
        "for nginx run in the foreground by any user",
    )
    args = parser.parse_args(argv)
    if len(set(args.ports)) != len(args.ports):
        parser.error(f"argument --ports: a port named twice in {args.ports}")
    sys.stdout.write(config(args.ports, args.listen, args.host, args.standalone))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
